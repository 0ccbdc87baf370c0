/**
 * The dashboard's views, in the order of its navigation. Apart from the views so that the package entry's
 * types (mount.ts) name them without reaching preact's: an app that mounts the dashboard has no preact.
 */
export const VIEWS = [
  { name: "requests", label: "Requests" },
  { name: "webhooks", label: "Webhooks" },
  { name: "faults", label: "Faults" },
  { name: "clocks", label: "Clocks" },
  { name: "workspaces", label: "Workspaces" },
  { name: "coverage", label: "Coverage and drift" },
] as const;

export type ViewName = (typeof VIEWS)[number]["name"];
