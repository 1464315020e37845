-- Booking regions: the IANA time zone installation appointments are offered in (windows, weekdays,
-- the 24-hour lead and the move-in hold are local to the building), and the booking window a held
-- invitation waits for. `code` is what buildings.region holds (ISO 3166-2, e.g. 'DE-BE', 'CA-ON');
-- a row whose code is a bare country (ISO 3166-1, 'DE', 'CA') is the fallback for a building of that
-- country without a known region.
CREATE TABLE regions (
  code text PRIMARY KEY,
  -- The CHECK refuses a zone the database does not know (the app's Intl uses the same tz database).
  time_zone text NOT NULL DEFAULT 'Europe/Berlin'
    CHECK (('2000-01-01 00:00+00'::timestamptz AT TIME ZONE time_zone) IS NOT NULL),
  -- Days before the move-in date the booking invitation goes out; NULL: the provider's booking_window_days.
  booking_window_days integer CHECK (booking_window_days BETWEEN 0 AND 365),
  created_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO regions (code, time_zone) VALUES
  ('DE', 'Europe/Berlin'),
  ('DE-BW', 'Europe/Berlin'), ('DE-BY', 'Europe/Berlin'), ('DE-BE', 'Europe/Berlin'), ('DE-BB', 'Europe/Berlin'),
  ('DE-HB', 'Europe/Berlin'), ('DE-HH', 'Europe/Berlin'), ('DE-HE', 'Europe/Berlin'), ('DE-MV', 'Europe/Berlin'),
  ('DE-NI', 'Europe/Berlin'), ('DE-NW', 'Europe/Berlin'), ('DE-RP', 'Europe/Berlin'), ('DE-SL', 'Europe/Berlin'),
  ('DE-SN', 'Europe/Berlin'), ('DE-ST', 'Europe/Berlin'), ('DE-SH', 'Europe/Berlin'), ('DE-TH', 'Europe/Berlin'),
  -- Canada spans six zones: the country row takes the most populous one; provinces name their own.
  ('CA', 'America/Toronto'),
  ('CA-ON', 'America/Toronto'), ('CA-QC', 'America/Toronto'), ('CA-NS', 'America/Halifax'), ('CA-NB', 'America/Moncton'),
  ('CA-PE', 'America/Halifax'), ('CA-NL', 'America/St_Johns'), ('CA-MB', 'America/Winnipeg'), ('CA-SK', 'America/Regina'),
  ('CA-AB', 'America/Edmonton'), ('CA-BC', 'America/Vancouver'), ('CA-YT', 'America/Whitehorse'),
  ('CA-NT', 'America/Edmonton'), ('CA-NU', 'America/Iqaluit');

-- Regions buildings already name but the list above lacks: their country's zone, else the default.
INSERT INTO regions (code, time_zone)
SELECT DISTINCT b.region, coalesce(c.time_zone, 'Europe/Berlin')
FROM buildings b
LEFT JOIN regions c ON c.code = upper(b.country)
WHERE b.region IS NOT NULL
ON CONFLICT (code) DO NOTHING;
