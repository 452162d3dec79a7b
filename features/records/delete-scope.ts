/**
 * @module features/records/delete-scope — which records a sync run's deletion detection has to look
 * at. It marks deleted the live records the run did not see; a run that read the model's stored
 * hashes knows most of the answer: of the records stored then, those it did not see (`ids`), and
 * besides them only records written since that read can be live and unseen; each such write took a
 * cursor above the read's highest (`after`). deleteUnseen then reads those few records (by index)
 * instead of every record of the model. A writer other than the run that took its cursor before the
 * read and committed after it is not in the scope: such a record, unseen, is marked deleted by the
 * next run instead (it is among that run's stored records).
 */
import type { DeleteScope, StoredHashes } from './store.js';

/** Beyond this many unseen records, deletion detection goes over the whole model (the scope would not be small). */
const MAX_SCOPE_IDS = 10_000;

/** The ids one sync run saw, by model (as stored), and the stored hashes it read: the scopes of its deletion detection. */
export class RunSeen {
  private readonly seen = new Map<string, Set<string>>();
  private readonly stored = new Map<string, StoredHashes>();

  /** The model's stored hashes as the run read them (its entries for ids the run did not see change only by its own deletes). */
  read(model: string, hashes: StoredHashes): void {
    this.stored.set(model, hashes);
  }

  /** The run noted these ids as seen (in the transaction that saved them). */
  saw(model: string, ids: readonly string[]): void {
    let set = this.seen.get(model);
    if (!set) this.seen.set(model, (set = new Set()));
    for (const id of ids) set.add(id);
  }

  /** Each model whose stored hashes the run read, with the scope of its deletion detection (none when too wide). */
  scopes(): Record<string, DeleteScope> {
    const out: Record<string, DeleteScope> = {};
    for (const [model, hashes] of this.stored) {
      const seen = this.seen.get(model);
      const ids: string[] = [];
      for (const id of hashes.keys()) if (!seen?.has(id) && ids.push(id) > MAX_SCOPE_IDS) break;
      if (ids.length <= MAX_SCOPE_IDS) out[model] = { after: hashes.upTo, ids };
    }
    return out;
  }
}
