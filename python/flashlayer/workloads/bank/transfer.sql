-- A bank's OLTP transaction on pgbench's TPC-B tables, with skewed account
-- access: an exponentially distributed account rank (parameter :skew),
-- scattered over the accounts table by a fixed permutation, so hot accounts
-- sit on many pages as a real bank's customers do, not on the first ones.
\set aid permute(random_exponential(1, 100000 * :scale, :skew), 100000 * :scale, 1)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
