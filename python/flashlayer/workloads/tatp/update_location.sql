-- TATP UPDATE_LOCATION (14%)
\set s_id random(1, :subscribers)
\set location random(1, 2147483647)
UPDATE subscriber SET vlr_location = :location WHERE sub_nbr = lpad(:s_id::text, 15, '0');
