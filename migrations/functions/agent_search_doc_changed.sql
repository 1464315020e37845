-- The trigger function of 20261208000000_search_documents.sql: the customers a changed row touches (a customer's
-- names or invoice address, a subscription, or the location, building or unit one is at) get their search
-- document again.
CREATE OR REPLACE FUNCTION agent_search_doc_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF TG_TABLE_NAME = 'subscribers' THEN
    PERFORM public.agent_search_doc_refresh(ARRAY[NEW.id]);
  ELSIF TG_TABLE_NAME = 'subscriptions' THEN
    PERFORM public.agent_search_doc_refresh(ARRAY[
      CASE WHEN TG_OP <> 'DELETE' THEN NEW.subscriber_id END,
      CASE WHEN TG_OP <> 'INSERT' THEN OLD.subscriber_id END]);
  ELSIF TG_TABLE_NAME = 'locations' THEN
    PERFORM public.agent_search_doc_refresh(ARRAY(SELECT s.subscriber_id FROM subscriptions s WHERE s.location_id = NEW.id));
  ELSIF TG_TABLE_NAME = 'buildings' THEN
    PERFORM public.agent_search_doc_refresh(ARRAY(
      SELECT s.subscriber_id FROM subscriptions s WHERE s.building_id = NEW.id
      UNION SELECT s.subscriber_id FROM locations l JOIN subscriptions s ON s.location_id = l.id WHERE l.building_id = NEW.id));
  ELSIF TG_TABLE_NAME = 'units' THEN
    PERFORM public.agent_search_doc_refresh(ARRAY(
      SELECT s.subscriber_id FROM subscriptions s WHERE s.unit_id = NEW.id
      UNION SELECT s.subscriber_id FROM locations l JOIN subscriptions s ON s.location_id = l.id WHERE l.unit_id = NEW.id));
  END IF;
  RETURN NULL;
END
$$;
