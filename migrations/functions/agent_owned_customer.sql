-- The ownership check of every /agent customer route: the customer row when it belongs to the
-- provider, no row otherwise (a customer of another provider answers 404). Same row as
-- customers.repository.ts reads.
CREATE OR REPLACE FUNCTION agent_owned_customer(p_provider uuid, p_customer uuid) RETURNS TABLE(id uuid, provider_id uuid, user_id uuid, customer_number text, first_name text, last_name text, email text, phone text, phone_e164 text, invoice_first_name text, invoice_last_name text, invoice_email text, invoice_phone text, invoice_street text, invoice_house_number text, invoice_postal_code text, invoice_city text, invoice_country text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET plan_cache_mode TO 'force_generic_plan'
    SET jit TO 'off'
    AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT c.id, c.provider_id, c.user_id, c.customer_number, c.first_name, c.last_name, c.email, c.phone, c.phone_e164,
    c.invoice_first_name, c.invoice_last_name, c.invoice_email, c.invoice_phone, c.invoice_street, c.invoice_house_number,
    c.invoice_postal_code, c.invoice_city, c.invoice_country::text
  FROM subscribers c
  WHERE c.id = p_customer AND c.provider_id = p_provider;
END
$$;
