-- TATP INSERT_CALL_FORWARDING (2%)
\set s_id random(1, :subscribers)
\set sf_type random(1, 4)
\set start_time random(0, 2) * 8
\set end_time :start_time + random(1, 8)
BEGIN;
SELECT s_id FROM subscriber WHERE sub_nbr = lpad(:s_id::text, 15, '0');
SELECT sf_type FROM special_facility WHERE s_id = :s_id;
INSERT INTO call_forwarding
SELECT :s_id, :sf_type, :start_time, :end_time, lpad(:s_id::text, 15, '0')
WHERE EXISTS (SELECT 1 FROM special_facility WHERE s_id = :s_id AND sf_type = :sf_type)
ON CONFLICT DO NOTHING;
COMMIT;
