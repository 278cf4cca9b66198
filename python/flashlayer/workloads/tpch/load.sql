-- TPC-H (revision 3) schema for PostgreSQL, loaded from the CSV files
-- tpchgen-cli writes (in the folder psql -v dir=FOLDER names, read by the
-- server), with the primary keys and the two secondary indexes PostgreSQL
-- needs to run the correlated subqueries of Q17, Q20 and Q22 in reasonable
-- time.
DROP TABLE IF EXISTS region, nation, part, supplier, partsupp, customer, orders, lineitem CASCADE;

CREATE TABLE region (r_regionkey integer, r_name char(25), r_comment varchar(152));
CREATE TABLE nation (n_nationkey integer, n_name char(25), n_regionkey integer, n_comment varchar(152));
CREATE TABLE part (
    p_partkey integer, p_name varchar(55), p_mfgr char(25), p_brand char(10), p_type varchar(25), p_size integer,
    p_container char(10), p_retailprice numeric(15, 2), p_comment varchar(23)
);
CREATE TABLE supplier (
    s_suppkey integer, s_name char(25), s_address varchar(40), s_nationkey integer, s_phone char(15),
    s_acctbal numeric(15, 2), s_comment varchar(101)
);
CREATE TABLE partsupp (
    ps_partkey integer, ps_suppkey integer, ps_availqty integer, ps_supplycost numeric(15, 2),
    ps_comment varchar(199)
);
CREATE TABLE customer (
    c_custkey integer, c_name varchar(25), c_address varchar(40), c_nationkey integer, c_phone char(15),
    c_acctbal numeric(15, 2), c_mktsegment char(10), c_comment varchar(117)
);
CREATE TABLE orders (
    o_orderkey bigint, o_custkey integer, o_orderstatus char(1), o_totalprice numeric(15, 2), o_orderdate date,
    o_orderpriority char(15), o_clerk char(15), o_shippriority integer, o_comment varchar(79)
);
CREATE TABLE lineitem (
    l_orderkey bigint, l_partkey integer, l_suppkey integer, l_linenumber integer, l_quantity numeric(15, 2),
    l_extendedprice numeric(15, 2), l_discount numeric(15, 2), l_tax numeric(15, 2), l_returnflag char(1),
    l_linestatus char(1), l_shipdate date, l_commitdate date, l_receiptdate date, l_shipinstruct char(25),
    l_shipmode char(10), l_comment varchar(44)
);

\set ON_ERROR_STOP 1
SELECT format('COPY %I FROM %L WITH (FORMAT csv, HEADER true)', t, :'dir' || '/' || t || '.csv')
FROM unnest(ARRAY['region', 'nation', 'part', 'supplier', 'partsupp', 'customer', 'orders', 'lineitem']) t
\gexec

ALTER TABLE region ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation ADD PRIMARY KEY (n_nationkey);
ALTER TABLE part ADD PRIMARY KEY (p_partkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);
CREATE INDEX lineitem_part_supp ON lineitem (l_partkey, l_suppkey);
CREATE INDEX orders_customer ON orders (o_custkey);

VACUUM ANALYZE;
