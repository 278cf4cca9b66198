-- TATP GET_NEW_DESTINATION (10%)
\set s_id random(1, :subscribers)
\set sf_type random(1, 4)
\set start_time random(0, 2) * 8
\set end_time random(1, 24)
SELECT cf.numberx
FROM special_facility sf JOIN call_forwarding cf ON cf.s_id = sf.s_id AND cf.sf_type = sf.sf_type
WHERE sf.s_id = :s_id AND sf.sf_type = :sf_type AND sf.is_active = 1
  AND cf.start_time <= :start_time AND :end_time < cf.end_time;
