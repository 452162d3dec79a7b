/**
 * @module api/routes/logos — `GET /images/logos/:file`: the logo URL `GET /providers` and
 * `GET /integrations` advertise for each provider (`<name>.svg`), a generated SVG
 * (features/providers/logo.ts). Any provider name has one, user-defined ones included.
 */
import { z } from 'zod';
import { providerLogoSvg } from '../../features/providers/logo.js';
import { defineRoute, type RawResponse } from '../route.js';

const svg: RawResponse = { description: 'The logo', content: { 'image/svg+xml': { schema: { type: 'string' } } } };

export const providerLogo = defineRoute({
  method: 'get',
  path: '/images/logos/:file',
  operationId: 'getProviderLogo',
  summary: "A provider's logo (SVG)",
  tag: 'providers',
  auth: 'none',
  request: {
    params: z.object({ file: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}\.svg$/, 'a provider name followed by .svg') }),
  },
  responses: { 200: svg },
  errors: [],
}).handle(async ({ params }, c) =>
  c.body(providerLogoSvg(params.file.slice(0, -'.svg'.length)), 200, {
    'content-type': 'image/svg+xml; charset=utf-8',
    'cache-control': 'public, max-age=86400',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  }),
);
