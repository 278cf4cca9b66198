-- TPC-C DELIVERY (4%): the transaction is the function tpcc_delivery of load.sql
\set w_id random(1, :warehouses)
SELECT tpcc_delivery(:w_id);
