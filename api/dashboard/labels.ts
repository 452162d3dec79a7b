/**
 * @module api/dashboard/labels — how the dashboard names a provider's auth mode and its categories
 * (the catalogue's slugs, Nango's: `dev-tools`, `crm`, …).
 */

const AUTH_MODES: Readonly<Record<string, string>> = {
  OAUTH2: 'OAuth 2',
  OAUTH2_CC: 'OAuth 2 client credentials',
  API_KEY: 'API key',
  BASIC: 'Basic',
  NONE: 'no auth',
};

/** A mode without a label here (one added to the schema later) is shown as it is named. */
export function authModeLabel(mode: string): string {
  return AUTH_MODES[mode] ?? mode;
}

const CATEGORY_WORDS: Readonly<Record<string, string>> = {
  ai: 'AI',
  ats: 'ATS',
  cms: 'CMS',
  crm: 'CRM',
  erp: 'ERP',
  hr: 'HR',
  mcp: 'MCP',
  'e-commerce': 'E-commerce',
};

/** `dev-tools` → `Dev tools`, `crm` → `CRM`. */
export function categoryLabel(slug: string): string {
  const known = CATEGORY_WORDS[slug];
  if (known) return known;
  const words = slug
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((w) => CATEGORY_WORDS[w] ?? w);
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
