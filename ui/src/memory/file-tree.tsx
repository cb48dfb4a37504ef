import { For, Show } from "solid-js";
import type { BrainEntry } from "../api/endpoints.js";
import type { Folder } from "./memory-controller.js";

export interface FileTreeProps {
  folders: Record<string, Folder>;
  expanded: string[];
  openPath: string | null;
  onToggle(folder: string): void;
  onOpen(path: string): void;
}

const nameOf = (path: string) => path.split("/").at(-1) ?? path;
// The index database: the runtime's, not a person's to read or edit (the cell refuses writes there anyway).
const INDEX_FOLDER = "db";

/** The brain's folders and files as nested lists of buttons; folders open on demand. */
export function FileTree(props: FileTreeProps) {
  const Level = (level: { folder: string }) => {
    const folder = () => props.folders[level.folder];
    return (
      <Show when={folder()} fallback={<p class="muted tree-note">Loading…</p>}>
        {(f) => (
          <>
            <Show when={f().error}>
              <p class="notice error" role="alert">
                {f().error}
              </p>
            </Show>
            <ul class="tree">
              <For each={f().entries.filter((e) => e.path !== INDEX_FOLDER)}>
                {(entry) => <Entry entry={entry} />}
              </For>
            </ul>
          </>
        )}
      </Show>
    );
  };
  const Entry = (item: { entry: BrainEntry }) => {
    const open = () => props.expanded.includes(item.entry.path);
    return (
      <li>
        <Show
          when={item.entry.kind === "dir"}
          fallback={
            <button
              type="button"
              class="tree-file"
              aria-current={props.openPath === item.entry.path ? "true" : undefined}
              data-path={item.entry.path}
              onClick={() => props.onOpen(item.entry.path)}
            >
              {nameOf(item.entry.path)}
            </button>
          }
        >
          <button
            type="button"
            class="tree-folder"
            aria-expanded={open()}
            data-path={item.entry.path}
            onClick={() => props.onToggle(item.entry.path)}
          >
            {nameOf(item.entry.path)}/
          </button>
          <Show when={open()}>
            <Level folder={item.entry.path} />
          </Show>
        </Show>
      </li>
    );
  };
  return (
    <nav class="file-tree" aria-label="Brain files">
      <Level folder="." />
    </nav>
  );
}
