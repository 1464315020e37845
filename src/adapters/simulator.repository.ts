// The simulators' own stores (tables of migration 20261122000300 plus credit_notes, which plays
// the billing system's store). Executor first, like every repository.
import type { Insertable, Selectable, Transaction } from 'kysely';
import type { DB, SimSwitchPorts } from '../db/types.js';
import type { Executor } from '../jobs/types.js';

export type SwitchPortRow = Selectable<SimSwitchPorts>;
export type SwitchAction = 'provision_port' | 'captive_portal' | 'reset_port' | 'update_bandwidth';

/** The operator's port inventory entry of a location (null when the location is unknown). */
export function findLocationPort(db: Executor, locationId: string) {
  return db.selectFrom('locations').select(['id', 'switch_id', 'switch_port', 'vlan_id']).where('id', '=', locationId).executeTakeFirst();
}

export function findSwitchPort(db: Executor, locationId: string) {
  return db.selectFrom('sim_switch_ports').selectAll().where('location_id', '=', locationId).executeTakeFirst();
}

/**
 * Claims an operation key. Returns false when the key was applied before (the caller then answers
 * with the stored result). On Postgres a concurrent claim of the same key waits for the first
 * transaction and then finds the key taken, so an operation is applied at most once.
 */
export async function claimOperation(trx: Transaction<DB>, op: { key: string; locationId: string; action: SwitchAction; at: Date }): Promise<boolean> {
  const row = await trx
    .insertInto('sim_switch_operations')
    .values({ operation_key: op.key, location_id: op.locationId, action: op.action, applied_at: op.at })
    .onConflict((oc) => oc.column('operation_key').doNothing())
    .returning('operation_key')
    .executeTakeFirst();
  return row !== undefined;
}

export function findOperation(db: Executor, key: string) {
  return db.selectFrom('sim_switch_operations').selectAll().where('operation_key', '=', key).executeTakeFirst();
}

export async function setOperationResult(trx: Transaction<DB>, key: string, result: Record<string, unknown>) {
  await trx.updateTable('sim_switch_operations').set({ result: JSON.stringify(result) }).where('operation_key', '=', key).execute();
}

type PortChange = Omit<Insertable<SimSwitchPorts>, 'location_id' | 'operations' | 'last_operation_key' | 'updated_at' | 'mode'> & {
  mode?: SimSwitchPorts['mode'];
};

/**
 * Applies one operation to the port: the listed columns change, the others keep their value (a new
 * port starts from `insertMode`), and `operations` counts the applied operations.
 */
export async function applyPortChange(
  trx: Transaction<DB>,
  p: { locationId: string; key: string; at: Date; insertMode: string; change: PortChange },
) {
  const { change } = p;
  await trx
    .insertInto('sim_switch_ports')
    .values({
      location_id: p.locationId,
      ...change,
      mode: change.mode ?? p.insertMode,
      operations: 1,
      last_operation_key: p.key,
      updated_at: p.at,
    })
    .onConflict((oc) =>
      oc.column('location_id').doUpdateSet((eb) => ({
        ...change,
        operations: eb('sim_switch_ports.operations', '+', 1),
        last_operation_key: p.key,
        updated_at: p.at,
      })),
    )
    .execute();
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
