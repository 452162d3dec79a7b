/**
 * @module api/dashboard/runs — where each run the Logs page lists (features/dashboard/runs.ts) is
 * in the Temporal UI.
 */
import type { Config } from '../../lib/config.js';
import type { RunSummary } from '../../features/dashboard/runs.js';
import { actionWorkflowId } from '../../workflows/contracts.js';

/** The Temporal workflow (and run, when known) that executed this run. */
export function workflowOf(envName: string, run: Pick<RunSummary, 'kind' | 'id'>): { workflowId: string; runId?: string } {
  if (run.kind === 'action') return { workflowId: actionWorkflowId(envName, run.id) };
  const slash = run.id.lastIndexOf('/');
  return slash < 0 ? { workflowId: run.id } : { workflowId: run.id.slice(0, slash), runId: run.id.slice(slash + 1) };
}

/**
 * The Temporal Web UI: the embedded dev server's on TEMPORAL_UI_PORT, or SWITCHYARD_TEMPORAL_UI_URL
 * for an external Temporal (no link when that is unset).
 */
export function temporalUiBase(config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_UI_PORT'>): string | null {
  const configured = process.env.SWITCHYARD_TEMPORAL_UI_URL;
  if (configured) return configured.replace(/\/+$/, '');
  return config.TEMPORAL_ADDRESS ? null : `http://localhost:${config.TEMPORAL_UI_PORT}`;
}

export function temporalRunUrl(
  config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_UI_PORT' | 'TEMPORAL_NAMESPACE'>,
  envName: string,
  run: Pick<RunSummary, 'kind' | 'id'>,
): string | null {
  const base = temporalUiBase(config);
  if (!base) return null;
  const { workflowId, runId } = workflowOf(envName, run);
  return `${base}/namespaces/${encodeURIComponent(config.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}${runId ? `/${encodeURIComponent(runId)}/history` : ''}`;
}
