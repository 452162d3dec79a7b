/**
 * @module features/providers/connection-config — a connection's config as its provider's fields say
 * (issue 30 item 6): a field's `default_value` where the connection gives no value (a region's
 * usual host, Microsoft's `common` tenant), and a value outside a field's `enum` refused with a 400
 * naming the field. Applied wherever a config enters: the Connect UI's flows and an import.
 */
import { ValidationFailed } from '../../lib/errors.js';
import type { Provider } from './providers.js';

const empty = (v: unknown) => v === undefined || v === null || v === '';

export function withConfigDefaults(provider: Provider, config: Record<string, unknown>): Record<string, unknown> {
  const out = { ...config };
  for (const [key, field] of Object.entries(provider.connectionConfig)) {
    const value = out[key];
    if (empty(value)) {
      if (field.default !== undefined) out[key] = field.default;
    } else if (field.choices && !field.choices.includes(String(value))) {
      const message = `must be one of ${field.choices.join(', ')}`;
      throw new ValidationFailed(
        'invalid_connection_config',
        [{ code: 'invalid_value', message, path: ['connection_config', key] }],
        `connection_config.${key} ${message}`,
      );
    }
  }
  return out;
}
