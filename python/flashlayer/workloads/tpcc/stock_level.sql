-- TPC-C STOCK-LEVEL (4%): the transaction is the function tpcc_stock_level of load.sql
\set w_id random(1, :warehouses)
SELECT tpcc_stock_level(:w_id);
