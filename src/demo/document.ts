// The JSON document `npm run seed:demo -- --json` prints and `npm start` writes to var/demo.json.
// Its keys are fixed by docs/demo-dataset.md; the extra keys here only add to them.

export interface DemoCustomer {
  id: string;
  customer_number: string;
  email: string;
  name: string;
  first_name: string;
  last_name: string;
  phone: string;
  subscription_id: string;
  subscription_status: string;
  plan: string;
  building_id: string;
  unit_id: string;
  unit_label: string;
  password?: string;
  open_invoice_id?: string;
  paid_invoice_id?: string;
}

export interface DemoPlan {
  plan_version_id: string;
  name: string;
  monthly_price: string;
  currency: string;
  store_product_id: string;
  download_mbps: number;
  upload_mbps: number;
}

export interface DemoBuilding {
  id: string;
  address: string;
  line_type: string | null;
  /** ISO 3166-2 region and its IANA time zone (installation appointments are in local time). */
  region: string;
  time_zone: string;
  structured: { street: string; house_number: string; postal_code: string; city: string; province: string | null; country: string };
  free_unit_id: string;
  free_unit_label: string;
}

export interface Credentials {
  email: string;
  password: string;
}

export interface DemoDocument {
  generated_at: string;
  base_url: string;
  external_checkout_url: string;
  webhook_url: string | null;
  providers: {
    main: {
      id: string;
      name: string;
      api_key: string;
      webhook_secret: string;
      webhook_signing_secret: string;
      features: string[];
      admin: Credentials;
      support: Credentials;
    };
    other: { id: string; name: string; api_key: string; webhook_secret: string; webhook_signing_secret: string; features: string[] };
    no_agent_access: { id: string; name: string; api_key: string; features: string[] };
    disabled: { id: string; name: string; api_key: string };
  };
  platform_admin: Credentials;
  plans: { basic: DemoPlan; fast: DemoPlan; faster: DemoPlan; other_provider: DemoPlan };
  customers: {
    invoiced: DemoCustomer;
    not_invoiced: DemoCustomer;
    missing_billing_document: DemoCustomer;
    missing_invoice: DemoCustomer;
    changed_today: DemoCustomer;
    activated: DemoCustomer & { password: string };
    not_activated: DemoCustomer;
    suspended: DemoCustomer;
    pending_install: DemoCustomer & { install_job_id: string };
    ambiguous: [DemoCustomer, DemoCustomer];
    other_provider: DemoCustomer;
  };
  buildings: {
    first_line: DemoBuilding & {
      location_hash: string;
      location_identifier: string;
      spare_location_hashes: string[];
      suite_only_unit_id: string;
    };
    second_line: DemoBuilding;
    third_line: DemoBuilding;
    unclassified: DemoBuilding;
    occupied_unit_id: string;
    other_provider: DemoBuilding & { location_hash: string };
  };
  checkout_sessions: { pending: { id: string }; suite_only: { id: string }; expired: { id: string }; cancelled: { id: string } };
  counts: Record<string, number>;
}
