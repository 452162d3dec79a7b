import { ActionError } from '../../sdk/index.js';

export function positiveId(id: number): number {
  if (id <= 0) throw new ActionError({ message: 'id must be a positive integer', id });
  return id;
}
