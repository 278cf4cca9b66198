-- TATP GET_ACCESS_DATA (35%)
\set s_id random(1, :subscribers)
\set ai_type random(1, 4)
SELECT data1, data2, data3, data4 FROM access_info WHERE s_id = :s_id AND ai_type = :ai_type;
