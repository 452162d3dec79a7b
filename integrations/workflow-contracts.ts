/**
 * @module integrations/workflow-contracts — the Temporal contracts of provider plugins' own
 * workflows (name → signature), merged into workflows/contracts.ts's `WorkflowContracts` so that
 * their starts are typed like the platform's. Pure: types and names only.
 */
import type { BackgroundCheckInput, BackgroundCheckResult } from './checkr-partner/workflows/contracts.js';

export interface PluginWorkflowContracts {
  backgroundCheckWorkflow: (input: BackgroundCheckInput) => Promise<BackgroundCheckResult>;
}

const names: Record<keyof PluginWorkflowContracts, true> = { backgroundCheckWorkflow: true };

export const pluginWorkflowNames = Object.keys(names) as (keyof PluginWorkflowContracts)[];
