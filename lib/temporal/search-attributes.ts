/**
 * @module temporal/search-attributes — the search attributes every Switchyard workflow carries,
 * so ops can filter runs in Temporal UI by environment, integration, connection and script. Pure
 * (only @temporalio/common): infrastructure here registers and reads them, and the Temporal
 * contracts (workflows/contracts.ts) re-export them to every caller that starts a workflow.
 */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const SA = {
  environment: defineSearchAttributeKey('SwitchyardEnvironment', SearchAttributeType.KEYWORD),
  integration: defineSearchAttributeKey('SwitchyardIntegration', SearchAttributeType.KEYWORD),
  connection: defineSearchAttributeKey('SwitchyardConnection', SearchAttributeType.KEYWORD),
  script: defineSearchAttributeKey('SwitchyardScript', SearchAttributeType.KEYWORD),
} as const;

export const searchAttributeNames = Object.values(SA).map((k) => k.name);

export interface RunLabels {
  environment: string;
  integration?: string;
  connection?: string;
  script?: string;
}

export function searchAttributesFor(labels: RunLabels): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [{ key: SA.environment, value: labels.environment }];
  if (labels.integration) pairs.push({ key: SA.integration, value: labels.integration });
  if (labels.connection) pairs.push({ key: SA.connection, value: labels.connection });
  if (labels.script) pairs.push({ key: SA.script, value: labels.script });
  return pairs;
}
