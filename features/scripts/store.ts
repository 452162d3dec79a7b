/**
 * @module features/scripts/store — deployed scripts and deployments. Rows of deployed_scripts never change
 * except for `active`: a new version is a new row, so bundles can be cached by their hash.
 */
import type { ScriptManifest } from './manifest.js';
import type { Queryable } from '../../lib/db/pool.js';
import type { SandboxBundle } from '../../lib/sandbox/linked.js';

export interface DeployedScriptRow {
  id: number;
  deploymentId: number;
  integrationId: number;
  name: string;
  type: 'sync' | 'action' | 'on-event';
  version: number;
  bundleSha256: string;
  manifest: ScriptManifest;
  createdAt: Date;
}

interface Row {
  id: number;
  deployment_id: number;
  integration_id: number;
  name: string;
  type: 'sync' | 'action' | 'on-event';
  version: number;
  bundle_sha256: string;
  manifest: ScriptManifest;
  created_at: Date;
}

/** A function's identity within its integration, as Nango keys it: a sync and an action may share a name. */
export const scriptKey = (s: { type: string; name: string }): string => `${s.type}:${s.name}`;

const COLUMNS = 'id, deployment_id, integration_id, name, type, version, bundle_sha256, manifest, created_at';

function fromRow(r: Row): DeployedScriptRow {
  return {
    id: r.id,
    deploymentId: r.deployment_id,
    integrationId: r.integration_id,
    name: r.name,
    type: r.type,
    version: r.version,
    bundleSha256: r.bundle_sha256,
    manifest: r.manifest,
    createdAt: r.created_at,
  };
}

/** The active scripts of one integration (without bundles). */
export async function activeScriptsOf(db: Queryable, integrationId: number): Promise<DeployedScriptRow[]> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM deployed_scripts WHERE integration_id = $1 AND active ORDER BY name, type`, [integrationId]);
  return rows.map(fromRow);
}

/** The active scripts of an environment, with the key of their integration. */
export async function activeScriptsOfEnvironment(db: Queryable, environmentId: number): Promise<(DeployedScriptRow & { integrationKey: string })[]> {
  const { rows } = await db.query<Row & { unique_key: string }>(
    `SELECT ${COLUMNS.split(', ')
      .map((c) => `s.${c}`)
      .join(', ')}, i.unique_key
       FROM deployed_scripts s JOIN integrations i ON i.id = s.integration_id
      WHERE s.environment_id = $1 AND s.active ORDER BY i.unique_key, s.name, s.type`,
    [environmentId],
  );
  return rows.map((r) => ({ ...fromRow(r), integrationKey: r.unique_key }));
}

/** The bundle of a script version: its IIFE, or its entry module with every module it imports. */
export async function bundleOf(db: Queryable, id: number): Promise<SandboxBundle | null> {
  const { rows } = await db.query<{ bundle: string; entry_path: string | null; modules: Record<string, string> | null }>(
    'SELECT bundle, entry_path, modules FROM deployed_scripts WHERE id = $1',
    [id],
  );
  const row = rows[0];
  if (!row) return null;
  if (!row.modules || row.entry_path === null) return row.bundle;
  const codes = await moduleCodes(db, Object.values(row.modules));
  const modules: Record<string, string> = {};
  for (const [p, sha] of Object.entries(row.modules)) {
    const code = codes.get(sha);
    if (code === undefined) throw new Error(`the module ${p} (${sha}) of script version ${id} is missing`);
    modules[p] = code;
  }
  return { entryPath: row.entry_path, entry: row.bundle, modules };
}

/** Code of stored shared modules by sha256 (those not stored are absent). */
export async function moduleCodes(db: Queryable, hashes: string[]): Promise<Map<string, string>> {
  if (!hashes.length) return new Map();
  const { rows } = await db.query<{ sha256: string; code: string }>('SELECT sha256, code FROM script_modules WHERE sha256 = ANY($1)', [[...new Set(hashes)]]);
  return new Map(rows.map((r) => [r.sha256, r.code]));
}

/** Stores shared modules by the sha256 of their code; one stored already is kept. */
export async function insertModules(db: Queryable, modules: Map<string, string>): Promise<void> {
  if (!modules.size) return;
  await db.query('INSERT INTO script_modules (sha256, code) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (sha256) DO NOTHING', [
    [...modules.keys()],
    [...modules.values()],
  ]);
}

/** The TypeScript a deployed script was compiled from, as its CLI uploaded it (null: none was sent). */
export async function sourceOf(db: Queryable, id: number): Promise<string | null> {
  const { rows } = await db.query<{ source: string | null }>('SELECT source FROM deployed_scripts WHERE id = $1', [id]);
  return rows[0]?.source ?? null;
}

export async function nextDeploymentVersion(db: Queryable, environmentId: number): Promise<number> {
  const { rows } = await db.query<{ v: number }>('SELECT COALESCE(MAX(version), 0) + 1 AS v FROM script_deployments WHERE environment_id = $1', [
    environmentId,
  ]);
  return rows[0]!.v;
}

export async function insertDeployment(
  db: Queryable,
  d: { environmentId: number; version: number; cliVersion: string | null; summary: unknown },
): Promise<{ id: number; createdAt: Date }> {
  const { rows } = await db.query<{ id: number; created_at: Date }>(
    'INSERT INTO script_deployments (environment_id, version, cli_version, summary) VALUES ($1, $2, $3, $4) RETURNING id, created_at',
    [d.environmentId, d.version, d.cliVersion, JSON.stringify(d.summary)],
  );
  return { id: rows[0]!.id, createdAt: rows[0]!.created_at };
}

export async function insertScriptVersion(
  db: Queryable,
  s: {
    deploymentId: number;
    environmentId: number;
    integrationId: number;
    name: string;
    type: string;
    bundle: string;
    bundleSha256: string;
    /** A linked bundle's entry path and its modules (path → sha256 in script_modules). */
    linked: { entryPath: string; modules: Record<string, string> } | null;
    source: string | null;
    manifest: ScriptManifest;
  },
): Promise<number> {
  const { rows } = await db.query<{ version: number }>(
    `INSERT INTO deployed_scripts (deployment_id, environment_id, integration_id, name, type, version, bundle, bundle_sha256, source, manifest, entry_path, modules)
     VALUES ($1, $2, $3, $4, $5,
             (SELECT COALESCE(MAX(version), 0) + 1 FROM deployed_scripts WHERE integration_id = $3 AND type = $5 AND name = $4),
             $6, $7, $8, $9, $10, $11)
     RETURNING version`,
    [
      s.deploymentId,
      s.environmentId,
      s.integrationId,
      s.name,
      s.type,
      s.bundle,
      s.bundleSha256,
      s.source,
      JSON.stringify(s.manifest),
      s.linked?.entryPath ?? null,
      s.linked ? JSON.stringify(s.linked.modules) : null,
    ],
  );
  return rows[0]!.version;
}

export async function deactivateScript(db: Queryable, id: number): Promise<void> {
  await db.query('UPDATE deployed_scripts SET active = false, deactivated_at = now() WHERE id = $1', [id]);
}
