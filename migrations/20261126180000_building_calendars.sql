-- The booking calendar of a building: the region row its `region` names, else the row of its country
-- (NULLs where neither exists; the service then uses the default zone). One definition for every read
-- that offers or shows installation windows.
CREATE VIEW building_calendars AS
SELECT b.id AS building_id,
       COALESCE(r.time_zone, rc.time_zone) AS time_zone,
       COALESCE(r.booking_window_days, rc.booking_window_days) AS booking_window_days
FROM buildings b
LEFT JOIN regions r ON r.code = b.region
LEFT JOIN regions rc ON rc.code = b.country;
