-- TPC-C ORDER-STATUS (4%): the transaction is the function tpcc_order_status of load.sql
\set w_id random(1, :warehouses)
SELECT tpcc_order_status(:w_id);
