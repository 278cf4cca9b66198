-- TPC-C NEW-ORDER (45%): the transaction is the function tpcc_new_order of load.sql
\set w_id random(1, :warehouses)
SELECT tpcc_new_order(:w_id, :warehouses);
