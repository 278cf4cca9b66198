-- TATP DELETE_CALL_FORWARDING (2%)
\set s_id random(1, :subscribers)
\set sf_type random(1, 4)
\set start_time random(0, 2) * 8
DELETE FROM call_forwarding
WHERE s_id = (SELECT s_id FROM subscriber WHERE sub_nbr = lpad(:s_id::text, 15, '0'))
  AND sf_type = :sf_type AND start_time = :start_time;
