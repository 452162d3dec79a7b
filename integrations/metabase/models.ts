import { z } from 'zod';

export const User = z.object({ id: z.string(), firstName: z.string().nullable(), lastName: z.string().nullable(), email: z.string(), active: z.boolean() });
export type User = z.infer<typeof User>;

export const IdEntity = z.object({ id: z.number().int() });
export const SuccessResponse = z.object({ success: z.literal(true) });

/** Metabase's own user shape (the fields we read). */
export interface MetabaseUser {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  is_active: boolean;
}

export function toUser(u: MetabaseUser): User {
  return { id: String(u.id), firstName: u.first_name, lastName: u.last_name, email: u.email, active: u.is_active };
}
