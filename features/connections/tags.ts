/**
 * @module features/connections/tags — connection tags: lowercased keys, at most 10, and the mapping from
 * the legacy end_user / organization fields.
 */
import { z } from 'zod';
import type { EndUser } from './store.js';

export const tagsSchema = z
  .record(
    z.string().regex(/^[A-Za-z][A-Za-z0-9_./-]{0,63}$/, 'a tag key starts with a letter and has at most 64 of A-Z a-z 0-9 _ . / -'),
    z.string().min(1).max(255),
  )
  .superRefine((tags, ctx) => {
    const keys = Object.keys(tags);
    if (keys.length > 10) ctx.addIssue({ code: 'custom', message: 'at most 10 tags' });
    const lower = keys.map((k) => k.toLowerCase());
    if (new Set(lower).size !== lower.length) ctx.addIssue({ code: 'custom', message: 'tag keys must be unique ignoring case' });
    if (tags.end_user_email !== undefined && !z.email().safeParse(tags.end_user_email).success) {
      ctx.addIssue({ code: 'custom', message: 'end_user_email must be an email address', path: ['end_user_email'] });
    }
  })
  .transform((tags) => Object.fromEntries(Object.entries(tags).map(([k, v]) => [k.toLowerCase(), v])));

export const endUserSchema = z
  .object({
    id: z.string().min(1).max(255),
    email: z.email().nullish(),
    display_name: z.string().max(255).nullish(),
    tags: z.record(z.string(), z.string()).nullish(),
    organization: z
      .object({ id: z.string().min(1).max(255), display_name: z.string().max(255).nullish() })
      .strict()
      .nullish(),
  })
  .strict();

export const organizationSchema = z.object({ id: z.string().min(1).max(255), display_name: z.string().max(255).nullish() }).strict();

/** Folds the legacy end-user fields into tags; explicit tags win. */
export function tagsFrom(endUser: EndUser | null | undefined, explicit: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (endUser) {
    for (const [k, v] of Object.entries(endUser.tags ?? {})) out[k.toLowerCase()] = v;
    out.end_user_id = endUser.id;
    if (endUser.email) out.end_user_email = endUser.email;
    if (endUser.display_name) out.end_user_display_name = endUser.display_name;
    if (endUser.organization?.id) out.organization_id = endUser.organization.id;
    if (endUser.organization?.display_name) out.organization_display_name = endUser.organization.display_name;
  }
  return { ...out, ...explicit };
}
