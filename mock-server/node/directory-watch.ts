/**
 * Watches a directory tree by watching each directory in it, not with fs.watch's `recursive`: on
 * Linux, Node 20 implements `recursive` with one watcher per file, bound to the file's inode, so a
 * file saved by replacing it (vim, sed -i, JetBrains' safe write: write a new file, rename it over)
 * is reported once and never again. A directory's watcher names whatever changes in it, replaced
 * files included, on every platform.
 */
import { readdirSync, statSync, watch, type FSWatcher } from "node:fs";
import { join, relative, sep } from "node:path";

export interface DirectoryWatch {
  close(): void;
}

/** `onChange` gets the path of what changed, relative to `root`, with `/` separators. */
export function watchDirectoryTree(root: string, onChange: (path: string) => void): DirectoryWatch {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;

  const forget = (dir: string) => {
    for (const [path, watcher] of watchers) {
      if (path === dir || path.startsWith(dir + sep)) {
        watcher.close();
        watchers.delete(path);
      }
    }
  };

  function add(dir: string): void {
    if (closed || watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        const path = name ? join(dir, String(name)) : dir;
        if (isDirectory(path)) addTree(path);
        onChange(relative(root, path).split(sep).join("/"));
      });
    } catch {
      return; // gone before it could be watched
    }
    // A watched directory that is deleted errors on some platforms: it is simply no longer watched.
    watcher.on("error", () => forget(dir));
    watchers.set(dir, watcher);
  }

  function addTree(dir: string): void {
    add(dir);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) addTree(join(dir, entry.name));
  }

  addTree(root);
  return {
    close() {
      closed = true;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
