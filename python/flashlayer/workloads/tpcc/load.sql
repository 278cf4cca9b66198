-- TPC-C (TPC Benchmark C, revision 5.11) schema, population and the five
-- transactions as PL/pgSQL functions, for PostgreSQL. Run with
-- psql -v warehouses=N. Population follows clause 4.3.3.1 (10 districts a
-- warehouse, 3,000 customers and orders a district, the last 900 orders
-- undelivered, 5 to 15 lines an order, 100,000 items, 100,000 stock rows a
-- warehouse); text columns are filled with random characters of the
-- clause's lengths. The transactions follow clause 2 (their inputs drawn
-- inside the functions with the clause's distributions); pgbench picks a
-- warehouse at random for every transaction rather than binding a terminal
-- to one.
DROP TABLE IF EXISTS warehouse, district, customer, history, new_order, orders, order_line, item, stock CASCADE;

CREATE TABLE warehouse (
    w_id integer, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20), w_city varchar(20),
    w_state char(2), w_zip char(9), w_tax numeric(4, 4), w_ytd numeric(12, 2)
);
CREATE TABLE district (
    d_id smallint, d_w_id integer, d_name varchar(10), d_street_1 varchar(20), d_street_2 varchar(20),
    d_city varchar(20), d_state char(2), d_zip char(9), d_tax numeric(4, 4), d_ytd numeric(12, 2),
    d_next_o_id integer
);
CREATE TABLE customer (
    c_id integer, c_d_id smallint, c_w_id integer, c_first varchar(16), c_middle char(2), c_last varchar(16),
    c_street_1 varchar(20), c_street_2 varchar(20), c_city varchar(20), c_state char(2), c_zip char(9),
    c_phone char(16), c_since timestamp, c_credit char(2), c_credit_lim numeric(12, 2), c_discount numeric(4, 4),
    c_balance numeric(12, 2), c_ytd_payment numeric(12, 2), c_payment_cnt integer, c_delivery_cnt integer,
    c_data varchar(500)
);
CREATE TABLE history (
    h_c_id integer, h_c_d_id smallint, h_c_w_id integer, h_d_id smallint, h_w_id integer, h_date timestamp,
    h_amount numeric(6, 2), h_data varchar(24)
);
CREATE TABLE new_order (no_o_id integer, no_d_id smallint, no_w_id integer);
CREATE TABLE orders (
    o_id integer, o_d_id smallint, o_w_id integer, o_c_id integer, o_entry_d timestamp, o_carrier_id smallint,
    o_ol_cnt smallint, o_all_local smallint
);
CREATE TABLE order_line (
    ol_o_id integer, ol_d_id smallint, ol_w_id integer, ol_number smallint, ol_i_id integer,
    ol_supply_w_id integer, ol_delivery_d timestamp, ol_quantity smallint, ol_amount numeric(6, 2),
    ol_dist_info char(24)
);
CREATE TABLE item (i_id integer, i_im_id integer, i_name varchar(24), i_price numeric(5, 2), i_data varchar(50));
CREATE TABLE stock (
    s_i_id integer, s_w_id integer, s_quantity smallint,
    s_dist_01 char(24), s_dist_02 char(24), s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24),
    s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24), s_dist_09 char(24), s_dist_10 char(24),
    s_ytd integer, s_order_cnt smallint, s_remote_cnt smallint, s_data varchar(50)
);

-- Random text of n characters (n <= 64), a random integer in [lo, hi], and
-- NURand(A, x, y) of clause 2.1.6 with run-time constant c.
CREATE OR REPLACE FUNCTION tpcc_text(n integer) RETURNS text LANGUAGE sql AS
$$ SELECT substr(md5(random()::text) || md5(random()::text), 1, n) $$;
CREATE OR REPLACE FUNCTION tpcc_rand(lo integer, hi integer) RETURNS integer LANGUAGE sql AS
$$ SELECT lo + floor(random() * (hi - lo + 1))::integer $$;
CREATE OR REPLACE FUNCTION tpcc_nurand(a integer, x integer, y integer, c integer) RETURNS integer LANGUAGE sql AS
$$ SELECT (((tpcc_rand(0, a) | tpcc_rand(x, y)) + c) % (y - x + 1)) + x $$;
-- C_LAST of clause 4.3.2.3: three syllables chosen by the digits of n.
CREATE OR REPLACE FUNCTION tpcc_last(n integer) RETURNS text IMMUTABLE LANGUAGE sql AS $$
    SELECT s[n / 100 + 1] || s[n / 10 % 10 + 1] || s[n % 10 + 1]
    FROM (SELECT ARRAY['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION', 'EING'] AS s) t
$$;
-- 10% of item and stock data hold "ORIGINAL" (clause 4.3.3.1).
CREATE OR REPLACE FUNCTION tpcc_data() RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN random() < 0.1 THEN overlay(d PLACING 'ORIGINAL' FROM 1 + floor(random() * (length(d) - 8))::integer)
                ELSE d END
    FROM (SELECT tpcc_text(tpcc_rand(26, 50)) AS d) t
$$;

DO $$ BEGIN PERFORM setseed(0.42); END $$;

INSERT INTO item
SELECT i, tpcc_rand(1, 10000), tpcc_text(tpcc_rand(14, 24)), tpcc_rand(100, 10000) / 100.0, tpcc_data()
FROM generate_series(1, 100000) i;

INSERT INTO warehouse
SELECT w, tpcc_text(tpcc_rand(6, 10)), tpcc_text(tpcc_rand(10, 20)), tpcc_text(tpcc_rand(10, 20)),
       tpcc_text(tpcc_rand(10, 20)), tpcc_text(2), lpad(tpcc_rand(0, 9999)::text, 4, '0') || '11111',
       tpcc_rand(0, 2000) / 10000.0, 300000
FROM generate_series(1, :warehouses) w;

INSERT INTO district
SELECT d, w, tpcc_text(tpcc_rand(6, 10)), tpcc_text(tpcc_rand(10, 20)), tpcc_text(tpcc_rand(10, 20)),
       tpcc_text(tpcc_rand(10, 20)), tpcc_text(2), lpad(tpcc_rand(0, 9999)::text, 4, '0') || '11111',
       tpcc_rand(0, 2000) / 10000.0, 30000, 3001
FROM generate_series(1, :warehouses) w, generate_series(1, 10) d;

INSERT INTO stock
SELECT i, w, tpcc_rand(10, 100), substr(m, 1, 24), substr(m, 2, 24), substr(m, 3, 24), substr(m, 4, 24),
       substr(m, 5, 24), substr(m, 6, 24), substr(m, 7, 24), substr(m, 8, 24), substr(m, 9, 24), substr(m, 10, 24),
       0, 0, 0, tpcc_data()
FROM (SELECT w, i, tpcc_text(33) AS m FROM generate_series(1, :warehouses) w, generate_series(1, 100000) i) r;

-- Customers 1..1000 of a district take the 1000 last names in order, the
-- rest NURand(255, 0, 999) with the load's C of 157; 10% have bad credit.
INSERT INTO customer
SELECT c, d, w, tpcc_text(tpcc_rand(8, 16)), 'OE',
       tpcc_last(CASE WHEN c <= 1000 THEN c - 1 ELSE tpcc_nurand(255, 0, 999, 157) END),
       tpcc_text(tpcc_rand(10, 20)), tpcc_text(tpcc_rand(10, 20)), tpcc_text(tpcc_rand(10, 20)), tpcc_text(2),
       lpad(tpcc_rand(0, 9999)::text, 4, '0') || '11111', lpad(tpcc_rand(0, 999999999)::text, 16, '0'), now(),
       CASE WHEN random() < 0.1 THEN 'BC' ELSE 'GC' END, 50000, tpcc_rand(0, 5000) / 10000.0, -10, 10, 1, 0,
       repeat(md5(random()::text), 16)::varchar(500)
FROM generate_series(1, :warehouses) w, generate_series(1, 10) d, generate_series(1, 3000) c;

INSERT INTO history
SELECT c, d, w, d, w, now(), 10, tpcc_text(tpcc_rand(12, 24))
FROM generate_series(1, :warehouses) w, generate_series(1, 10) d, generate_series(1, 3000) c;

-- Orders 1..3000 of a district go to a permutation of its customers;
-- 2101..3000 are undelivered (no carrier, in new_order).
INSERT INTO orders
SELECT o, d, w, row_number() OVER (PARTITION BY w, d ORDER BY random()), now(),
       CASE WHEN o < 2101 THEN tpcc_rand(1, 10) END, tpcc_rand(5, 15), 1
FROM generate_series(1, :warehouses) w, generate_series(1, 10) d, generate_series(1, 3000) o;

INSERT INTO order_line
SELECT o.o_id, o.o_d_id, o.o_w_id, n, tpcc_rand(1, 100000), o.o_w_id,
       CASE WHEN o.o_id < 2101 THEN o.o_entry_d END, 5,
       CASE WHEN o.o_id < 2101 THEN 0 ELSE tpcc_rand(1, 999999) / 100.0 END, tpcc_text(24)
FROM orders o, LATERAL generate_series(1, o.o_ol_cnt) n;

INSERT INTO new_order
SELECT o, d, w FROM generate_series(1, :warehouses) w, generate_series(1, 10) d, generate_series(2101, 3000) o;

ALTER TABLE warehouse ADD PRIMARY KEY (w_id);
ALTER TABLE district ADD PRIMARY KEY (d_w_id, d_id);
ALTER TABLE customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id);
CREATE INDEX customer_by_name ON customer (c_w_id, c_d_id, c_last, c_first);
ALTER TABLE new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id);
ALTER TABLE orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id);
CREATE INDEX orders_by_customer ON orders (o_w_id, o_d_id, o_c_id, o_id);
ALTER TABLE order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);
ALTER TABLE item ADD PRIMARY KEY (i_id);
ALTER TABLE stock ADD PRIMARY KEY (s_w_id, s_i_id);

-- A customer by last name (clause 2.5.2.2): the one at position n/2
-- (rounded up) of those sharing it, ordered by first name.
CREATE OR REPLACE FUNCTION tpcc_customer_by_name(w integer, d integer, name text) RETURNS integer LANGUAGE sql AS $$
    SELECT ids[(cardinality(ids) + 1) / 2]
    FROM (SELECT array_agg(c_id ORDER BY c_first) AS ids FROM customer
          WHERE c_w_id = w AND c_d_id = d AND c_last = name) t
$$;

-- New-Order (clause 2.4): 5 to 15 lines, items NURand(8191, 1, 100000), 1%
-- of lines from a remote warehouse, 1% of transactions roll back on an
-- unused item number (the work done is undone). Items are taken in order
-- of their numbers so that concurrent New-Orders lock stock rows in one
-- order.
CREATE OR REPLACE FUNCTION tpcc_new_order(w integer, warehouses integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    d integer := tpcc_rand(1, 10);
    c integer := tpcc_nurand(1023, 1, 3000, 259);
    n integer := tpcc_rand(5, 15);
    items integer[];
    supply integer[];
    o integer;
    price numeric;
    dist text;
    qty integer;
BEGIN
    SELECT array_agg(i ORDER BY i) INTO items FROM (SELECT tpcc_nurand(8191, 1, 100000, 7911) AS i
                                                   FROM generate_series(1, n)) t;
    IF random() < 0.01 THEN
        items[n] := 100001;
    END IF;
    SELECT array_agg(CASE WHEN warehouses > 1 AND random() < 0.01
                          THEN (w + tpcc_rand(0, warehouses - 2)) % warehouses + 1 ELSE w END)
    INTO supply FROM generate_series(1, n);
    PERFORM w_tax FROM warehouse WHERE w_id = w;
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = w AND d_id = d RETURNING d_next_o_id - 1 INTO o;
    PERFORM c_discount, c_last, c_credit FROM customer WHERE c_w_id = w AND c_d_id = d AND c_id = c;
    INSERT INTO orders VALUES (o, d, w, c, now(), NULL, n, (SELECT bool_and(s = w)::integer FROM unnest(supply) s));
    INSERT INTO new_order VALUES (o, d, w);
    FOR k IN 1..n LOOP
        SELECT i_price INTO price FROM item WHERE i_id = items[k];
        IF NOT FOUND THEN
            RAISE EXCEPTION 'tpcc rollback' USING ERRCODE = 'TC001';
        END IF;
        qty := tpcc_rand(1, 10);
        UPDATE stock SET s_quantity = CASE WHEN s_quantity >= qty + 10 THEN s_quantity - qty ELSE s_quantity - qty + 91 END,
                         s_ytd = s_ytd + qty, s_order_cnt = s_order_cnt + 1,
                         s_remote_cnt = s_remote_cnt + (supply[k] <> w)::integer
        WHERE s_w_id = supply[k] AND s_i_id = items[k]
        RETURNING CASE d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
                         WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
                         WHEN 9 THEN s_dist_09 ELSE s_dist_10 END INTO dist;
        INSERT INTO order_line VALUES (o, d, w, k, items[k], supply[k], NULL, qty, qty * price, dist);
    END LOOP;
EXCEPTION WHEN SQLSTATE 'TC001' THEN
    RETURN;
END
$$;

-- Payment (clause 2.5): 85% of customers at the home warehouse, 60% chosen
-- by last name (NURand(255, 0, 999) with the run's C of 223).
CREATE OR REPLACE FUNCTION tpcc_payment(w integer, warehouses integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    d integer := tpcc_rand(1, 10);
    cw integer := w;
    cd integer := d;
    c integer;
    amount numeric := tpcc_rand(100, 500000) / 100.0;
BEGIN
    IF warehouses > 1 AND random() < 0.15 THEN
        cw := (w + tpcc_rand(0, warehouses - 2)) % warehouses + 1;
        cd := tpcc_rand(1, 10);
    END IF;
    IF random() < 0.6 THEN
        c := tpcc_customer_by_name(cw, cd, tpcc_last(tpcc_nurand(255, 0, 999, 223)));
    ELSE
        c := tpcc_nurand(1023, 1, 3000, 259);
    END IF;
    UPDATE warehouse SET w_ytd = w_ytd + amount WHERE w_id = w;
    UPDATE district SET d_ytd = d_ytd + amount WHERE d_w_id = w AND d_id = d;
    UPDATE customer SET c_balance = c_balance - amount, c_ytd_payment = c_ytd_payment + amount,
                        c_payment_cnt = c_payment_cnt + 1,
                        c_data = CASE WHEN c_credit = 'BC'
                                      THEN substr(c_id || ' ' || cd || ' ' || cw || ' ' || d || ' ' || w || ' '
                                                  || amount || ' ' || c_data, 1, 500)
                                      ELSE c_data END
    WHERE c_w_id = cw AND c_d_id = cd AND c_id = c;
    INSERT INTO history VALUES (c, cd, cw, d, w, now(), amount, tpcc_text(24));
END
$$;

-- Order-Status (clause 2.6): a customer's last order and its lines.
CREATE OR REPLACE FUNCTION tpcc_order_status(w integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    d integer := tpcc_rand(1, 10);
    c integer;
    o integer;
BEGIN
    IF random() < 0.6 THEN
        c := tpcc_customer_by_name(w, d, tpcc_last(tpcc_nurand(255, 0, 999, 223)));
    ELSE
        c := tpcc_nurand(1023, 1, 3000, 259);
    END IF;
    PERFORM c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = w AND c_d_id = d AND c_id = c;
    SELECT o_id INTO o FROM orders WHERE o_w_id = w AND o_d_id = d AND o_c_id = c ORDER BY o_id DESC LIMIT 1;
    PERFORM ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
    FROM order_line WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o;
END
$$;

-- Delivery (clause 2.7): the oldest undelivered order of each district.
CREATE OR REPLACE FUNCTION tpcc_delivery(w integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    carrier integer := tpcc_rand(1, 10);
    o integer;
    c integer;
    total numeric;
BEGIN
    FOR d IN 1..10 LOOP
        SELECT min(no_o_id) INTO o FROM new_order WHERE no_w_id = w AND no_d_id = d;
        CONTINUE WHEN o IS NULL;
        DELETE FROM new_order WHERE no_w_id = w AND no_d_id = d AND no_o_id = o;
        UPDATE orders SET o_carrier_id = carrier WHERE o_w_id = w AND o_d_id = d AND o_id = o RETURNING o_c_id INTO c;
        UPDATE order_line SET ol_delivery_d = now() WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o;
        SELECT sum(ol_amount) INTO total FROM order_line WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o;
        UPDATE customer SET c_balance = c_balance + total, c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = w AND c_d_id = d AND c_id = c;
    END LOOP;
END
$$;

-- Stock-Level (clause 2.8): items of the district's last 20 orders whose
-- stock is below a threshold of 10 to 20.
CREATE OR REPLACE FUNCTION tpcc_stock_level(w integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    d integer := tpcc_rand(1, 10);
    threshold integer := tpcc_rand(10, 20);
    next_o integer;
    low bigint;
BEGIN
    SELECT d_next_o_id INTO next_o FROM district WHERE d_w_id = w AND d_id = d;
    SELECT count(DISTINCT s_i_id) INTO low
    FROM order_line JOIN stock ON s_w_id = w AND s_i_id = ol_i_id
    WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id >= next_o - 20 AND ol_o_id < next_o
      AND s_quantity < threshold;
    RETURN low;
END
$$;

VACUUM ANALYZE;
