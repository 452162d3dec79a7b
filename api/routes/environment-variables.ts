/**
 * @module api/routes/environment-variables — the environment's variables, as Nango's
 * `GET /environment-variables` lists them (and `@nangohq/node` getEnvironmentVariables reads
 * them); `POST` replaces them all. Scripts read them with `getEnvironmentVariables()`.
 */
import { z } from 'zod';
import { getEnvironmentVariables, setEnvironmentVariables } from '../../features/environments/variables.js';
import { ValidationFailed } from '../../lib/errors.js';
import { defineRoute } from '../route.js';

const variable = z
  .object({
    name: z
      .string()
      .min(1)
      .max(256)
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _, not starting with a digit'),
    value: z.string().max(8192),
  })
  .strict();
const list = z.array(z.object({ name: z.string(), value: z.string() }));
const postBody = z.object({ variables: z.array(variable).max(256) }).strict();

export const listEnvironmentVariables = defineRoute({
  method: 'get',
  path: '/environment-variables',
  operationId: 'listEnvironmentVariables',
  summary: "The environment's variables (name and value), as its scripts read them",
  tag: 'environment',
  auth: 'secret_key',
  scope: 'environment:variables:read',
  responses: { 200: list },
  errors: [],
}).handle(async ({ deps }, c) => getEnvironmentVariables(deps.db, deps.box, c.get('environment').id));

export const replaceEnvironmentVariables = defineRoute({
  method: 'post',
  path: '/environment-variables',
  operationId: 'replaceEnvironmentVariables',
  summary: "Replace the environment's variables (an empty list removes them)",
  tag: 'environment',
  auth: 'secret_key',
  request: { body: postBody },
  responses: { 200: list },
  errors: [],
}).handle(async ({ deps, body }, c) => {
  const env = c.get('environment');
  const seen = new Set<string>();
  const problems: ValidationFailed['errors'] = [];
  body.variables.forEach((v, i) => {
    if (seen.has(v.name)) problems.push({ code: 'duplicate', message: `${v.name} is given twice`, path: ['variables', i, 'name'] });
    seen.add(v.name);
  });
  if (problems.length) throw new ValidationFailed('invalid_body', problems);
  await setEnvironmentVariables(deps.db, deps.box, env.id, body.variables);
  return body.variables;
});
