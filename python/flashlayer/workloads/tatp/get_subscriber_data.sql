-- TATP GET_SUBSCRIBER_DATA (35%)
\set s_id random(1, :subscribers)
SELECT * FROM subscriber WHERE s_id = :s_id;
