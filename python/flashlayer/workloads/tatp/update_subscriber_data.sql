-- TATP UPDATE_SUBSCRIBER_DATA (2%)
\set s_id random(1, :subscribers)
\set sf_type random(1, 4)
\set bit random(0, 1)
\set data_a random(0, 255)
BEGIN;
UPDATE subscriber SET bit_1 = :bit WHERE s_id = :s_id;
UPDATE special_facility SET data_a = :data_a WHERE s_id = :s_id AND sf_type = :sf_type;
COMMIT;
