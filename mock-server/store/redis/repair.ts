/**
 * Repair: a workspace the registry names for a generation it was not written for. Step 4 of a commit
 * on several units (commit.ts) comes after the registry's step 3; a writer killed in between leaves the
 * registry naming generation G while the workspace's keys hold an older one, or nothing. The next
 * process that reads the workspace writes it whole for G, seeded as the writer would have seeded it
 * (its clock keeps its time). Several processes may try at once, and the writer itself may only be
 * slow: the first write for G wins (the commit script refuses a generation not newer than the one
 * there), and the others read that one.
 *
 * Decided on a current registry only: a copy that has not yet seen a later delete would otherwise bring
 * the workspace back. The store reads the registry before a repair, and `rewrite` judges again under the
 * unit's hold; a dropped workspace also keeps its generation in Redis, so a repair for an older one that
 * arrives after the drop is refused.
 */
import type { WorkspaceChange } from "../changes.js";
import type { Registry } from "../registry.js";
import type { Commits } from "./commit.js";
import type { RedisLink } from "./redis.js";
import { type Unit, writeOf } from "./unit.js";

export interface RepairParts {
  link: RedisLink;
  commits: Commits;
  registry: Registry;
  /** Each workspace's generation as the registry names it. */
  gens: Map<string, number>;
}

export class Repairs {
  constructor(private readonly parts: RepairParts) {}

  /** Whether the registry names the unit's workspace for a generation the unit was not written for. */
  behind(unit: Unit): boolean {
    const workspace = unit.workspace;
    if (!workspace || this.parts.registry.get(workspace.workspaceId) !== workspace) return false;
    return unit.gen < (this.parts.gens.get(workspace.workspaceId) ?? 0);
  }

  /**
   * Writes the unit (held by the caller) whole for the registry's generation. True when written or no
   * longer behind; false when a write for that generation (or a newer one) is there: read it instead.
   */
  async rewrite(unit: Unit<WorkspaceChange>): Promise<boolean> {
    if (!this.behind(unit)) return true;
    const { link, commits, registry, gens } = this.parts;
    const workspace = unit.workspace!;
    const gen = gens.get(workspace.workspaceId) ?? 0;
    unit.dueBefore = undefined;
    unit.before = new Map();
    registry.resetOne(workspace);
    unit.whole = true;
    const undo = (error: unknown): never => {
      commits.undo([unit]);
      throw error;
    };
    const deadline = await commits.hint([unit]).catch(undo);
    const [result] = await link.commit([{ ...writeOf(unit), expected: -1, gen, deadline }]).catch(undo);
    if (result.kind !== "written") {
      commits.undo([unit]);
      return false;
    }
    commits.written(unit, result.version, gen);
    return true;
  }
}
