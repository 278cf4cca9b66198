-- TPC-C PAYMENT (43%): the transaction is the function tpcc_payment of load.sql
\set w_id random(1, :warehouses)
SELECT tpcc_payment(:w_id, :warehouses);
