// The simulators' own stores (the sim_* tables plus credit_notes, which plays
// the billing system's store). Executor first, like every repository.
import { sql, type Insertable, type Selectable } from 'kysely';
import type { SimSwitchPorts } from '../db/types.js';
import type { Executor } from '../db/executor.js';
import { firstRow } from '../lib/present.js';

export type SwitchPortRow = Selectable<SimSwitchPorts>;
export type SwitchAction = 'provision_port' | 'captive_portal' | 'reset_port' | 'update_bandwidth';

/**
 * The operator's port inventory entry of a location with the switch the simulated port was last
 * set up on (null when the switch never touched it); undefined when the location is unknown.
 */
export function findLocationPort(db: Executor, locationId: string) {
  return db
    .selectFrom('locations as l')
    .leftJoin('sim_switch_ports as p', 'p.location_id', 'l.id')
    .select(['l.id', 'l.switch_id', 'l.switch_port', 'l.vlan_id', 'p.switch_id as port_switch_id'])
    .where('l.id', '=', locationId)
    .executeTakeFirst();
}

export function findSwitchPort(db: Executor, locationId: string) {
  return db.selectFrom('sim_switch_ports').selectAll().where('location_id', '=', locationId).executeTakeFirst();
}

export function findOperation(db: Executor, key: string) {
  return db.selectFrom('sim_switch_operations').selectAll().where('operation_key', '=', key).executeTakeFirst();
}

/** The columns an operation sets on the port; the others keep their value. */
export type PortChange = Omit<Insertable<SimSwitchPorts>, 'location_id' | 'operations' | 'last_operation_key' | 'updated_at' | 'mode'> & {
  mode?: SimSwitchPorts['mode'];
};

/**
 * Claims the operation key and applies its change to the port in one statement, so the two are
 * atomic without a transaction: the key is stored with its answer (`result`) and the port row is
 * created (from `insertMode`) or updated, `operations` counting the applied operations.
 *
 * Nothing is written when the location is not in the port inventory (`known` false) or when the key
 * was claimed before (`claimed` false: the caller answers with the stored result). On Postgres a
 * concurrent claim of the same key waits for the first statement's transaction and then finds the
 * key taken, so an operation is applied at most once. The change travels as one JSON parameter,
 * typed column by column by jsonb_populate_record against the table itself.
 */
export async function claimAndApply(
  db: Executor,
  op: {
    key: string;
    locationId: string;
    action: SwitchAction;
    at: Date;
    result: Record<string, unknown>;
    insertMode: string;
    change: PortChange;
  },
): Promise<{ known: boolean; claimed: boolean }> {
  const row: Record<string, unknown> = {
    ...op.change,
    mode: op.change.mode ?? op.insertMode,
    location_id: op.locationId,
    operations: 1,
    last_operation_key: op.key,
    updated_at: op.at,
  };
  const columns = Object.keys(row);
  const updated = [...Object.keys(op.change), 'last_operation_key', 'updated_at'];
  const r = await sql<{ known: boolean; claimed: boolean }>`
    WITH loc AS (
      SELECT id FROM locations WHERE id = ${op.locationId}
    ), claim AS (
      INSERT INTO sim_switch_operations (operation_key, location_id, action, result, applied_at)
      SELECT ${op.key}::text, loc.id, ${op.action}::text, ${JSON.stringify(op.result)}::jsonb, ${op.at}::timestamptz FROM loc
      ON CONFLICT (operation_key) DO NOTHING
      RETURNING location_id
    ), port AS (
      INSERT INTO sim_switch_ports (${sql.join(columns.map((c) => sql.ref(c)))})
      SELECT ${sql.join(columns.map((c) => sql.ref(`v.${c}`)))}
      FROM claim, jsonb_populate_record(NULL::sim_switch_ports, ${JSON.stringify(row)}::jsonb) AS v
      ON CONFLICT (location_id) DO UPDATE SET
        ${sql.join(updated.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`))},
        operations = sim_switch_ports.operations + 1
    )
    SELECT EXISTS (SELECT 1 FROM loc) AS known, EXISTS (SELECT 1 FROM claim) AS claimed`.execute(db);
  return firstRow(r.rows);
}

export function listCreditNoteRows(db: Executor, subscriberId: string) {
  return db
    .selectFrom('credit_notes')
    .selectAll()
    .where('subscriber_id', '=', subscriberId)
    .orderBy('issued_at', 'desc')
    .orderBy('number', 'desc')
    .execute();
}

export function findCreditNoteRow(db: Executor, id: string) {
  return db.selectFrom('credit_notes').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function upsertBillingSchedule(db: Executor, s: { subscriptionId: string; sendDate: string; at: Date }) {
  await db
    .insertInto('sim_billing_schedules')
    .values({ subscription_id: s.subscriptionId, next_send_date: s.sendDate, reschedules: 1, updated_at: s.at })
    .onConflict((oc) =>
      oc.column('subscription_id').doUpdateSet((eb) => ({
        next_send_date: s.sendDate,
        reschedules: eb('sim_billing_schedules.reschedules', '+', 1),
        updated_at: s.at,
      })),
    )
    .execute();
}

export function findBillingSchedule(db: Executor, subscriptionId: string) {
  return db.selectFrom('sim_billing_schedules').selectAll().where('subscription_id', '=', subscriptionId).executeTakeFirst();
}
