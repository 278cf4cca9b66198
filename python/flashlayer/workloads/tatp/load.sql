-- TATP (Telecom Application Transaction Processing) schema and population
-- for PostgreSQL, after the TATP description (IBM/Solid, v1.0): four tables
-- keyed by subscriber. Run with psql -v subscribers=N.
DROP TABLE IF EXISTS call_forwarding, special_facility, access_info, subscriber;

CREATE TABLE subscriber (
    s_id integer PRIMARY KEY,
    sub_nbr varchar(15) NOT NULL UNIQUE,
    bit_1 smallint, bit_2 smallint, bit_3 smallint, bit_4 smallint, bit_5 smallint,
    bit_6 smallint, bit_7 smallint, bit_8 smallint, bit_9 smallint, bit_10 smallint,
    hex_1 smallint, hex_2 smallint, hex_3 smallint, hex_4 smallint, hex_5 smallint,
    hex_6 smallint, hex_7 smallint, hex_8 smallint, hex_9 smallint, hex_10 smallint,
    byte2_1 smallint, byte2_2 smallint, byte2_3 smallint, byte2_4 smallint, byte2_5 smallint,
    byte2_6 smallint, byte2_7 smallint, byte2_8 smallint, byte2_9 smallint, byte2_10 smallint,
    msc_location integer,
    vlr_location integer
);

CREATE TABLE access_info (
    s_id integer NOT NULL REFERENCES subscriber,
    ai_type smallint NOT NULL,
    data1 smallint, data2 smallint, data3 char(3), data4 char(5),
    PRIMARY KEY (s_id, ai_type)
);

CREATE TABLE special_facility (
    s_id integer NOT NULL REFERENCES subscriber,
    sf_type smallint NOT NULL,
    is_active smallint NOT NULL,
    error_cntrl smallint, data_a smallint, data_b char(5),
    PRIMARY KEY (s_id, sf_type)
);

CREATE TABLE call_forwarding (
    s_id integer NOT NULL,
    sf_type smallint NOT NULL,
    start_time smallint NOT NULL,
    end_time smallint,
    numberx varchar(15),
    PRIMARY KEY (s_id, sf_type, start_time),
    FOREIGN KEY (s_id, sf_type) REFERENCES special_facility
);

SELECT setseed(0.42);

INSERT INTO subscriber
SELECT s, lpad(s::text, 15, '0'),
       (random() * 1)::int, (random() * 1)::int, (random() * 1)::int, (random() * 1)::int, (random() * 1)::int,
       (random() * 1)::int, (random() * 1)::int, (random() * 1)::int, (random() * 1)::int, (random() * 1)::int,
       (random() * 15)::int, (random() * 15)::int, (random() * 15)::int, (random() * 15)::int, (random() * 15)::int,
       (random() * 15)::int, (random() * 15)::int, (random() * 15)::int, (random() * 15)::int, (random() * 15)::int,
       (random() * 255)::int, (random() * 255)::int, (random() * 255)::int, (random() * 255)::int,
       (random() * 255)::int, (random() * 255)::int, (random() * 255)::int, (random() * 255)::int,
       (random() * 255)::int, (random() * 255)::int,
       (random() * 2147483647)::int, (random() * 2147483647)::int
FROM generate_series(1, :subscribers) s;

-- 1 to 4 access_info and special_facility rows per subscriber (types chosen
-- at random, 2.5 on average), 85% of facilities active, 0 to 3
-- call_forwarding rows per facility (start times 0, 8, 16).
INSERT INTO access_info
SELECT s, t, (random() * 255)::int, (random() * 255)::int,
       substr(md5(random()::text), 1, 3), substr(md5(random()::text), 1, 5)
FROM generate_series(1, :subscribers) s, generate_series(1, 4) t
WHERE t = 1 OR random() < 0.5;

INSERT INTO special_facility
SELECT s, t, CASE WHEN random() < 0.85 THEN 1 ELSE 0 END, (random() * 255)::int, (random() * 255)::int,
       substr(md5(random()::text), 1, 5)
FROM generate_series(1, :subscribers) s, generate_series(1, 4) t
WHERE t = 1 OR random() < 0.5;

INSERT INTO call_forwarding
SELECT sf.s_id, sf.sf_type, st, st + 1 + (random() * 7)::int, lpad((random() * 999999999)::bigint::text, 15, '0')
FROM special_facility sf, (VALUES (0), (8), (16)) AS starts(st)
WHERE random() < 0.5;

VACUUM ANALYZE;
