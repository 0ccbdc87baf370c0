/**
 * The dashboard's CSS, one string adopted as a constructed stylesheet by the shadow root (mount.ts): the
 * host page's CSS does not reach in and ours does not leak out, and no <style> element or style attribute
 * is needed, so a Content-Security-Policy without 'unsafe-inline' allows it. System fonts only (offline, no
 * asset); light or dark as the system prefers. Narrow screens (a 390 px phone) stack the detail pane under
 * the list and let tables scroll sideways.
 */
export const STYLES = `
:host { display: block; }
.dash {
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa; --accent: #0a58ca;
  --ok: #116329; --ok-bg: #dafbe1; --warn: #7d4e00; --warn-bg: #fff8c5; --bad: #a40e26; --bad-bg: #ffebe9;
  --info-bg: #ddf4ff; --focus: #0a58ca;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--fg); background: var(--bg); min-height: 100%; box-sizing: border-box;
}
@media (prefers-color-scheme: dark) {
  .dash {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9ea7b3; --line: #30363d; --panel: #161b22; --accent: #58a6ff;
    --ok: #56d364; --ok-bg: #12361f; --warn: #e3b341; --warn-bg: #3a2a05; --bad: #ff7b72; --bad-bg: #4a1319;
    --info-bg: #0c2d4a; --focus: #58a6ff;
  }
}
.dash *, .dash *::before, .dash *::after { box-sizing: inherit; }
.dash a { color: var(--accent); }
.dash :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; border-radius: 3px; }
/* A heading focused by the page (a request opened) is where reading goes on, not a control. */
.dash [tabindex="-1"]:focus { outline: none; }
.dash code, .dash pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
.dash pre { margin: 0; padding: 8px; background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
  overflow: auto; max-height: 360px; white-space: pre-wrap; word-break: break-word; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; padding: 10px 16px;
  border-bottom: 1px solid var(--line); background: var(--panel); }
.top h1 { font-size: 16px; margin: 0; }
.tabs ul { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; margin: 0; padding: 0; }
.tabs a { display: inline-block; padding: 6px 10px; border-radius: 6px; text-decoration: none; color: var(--fg); }
.tabs a:hover { background: var(--line); }
.tabs a[aria-current="page"] { background: var(--accent); color: var(--bg); font-weight: 600; }
.live { margin-left: auto; display: inline-flex; align-items: center; gap: 6px; font-weight: 600; }
.live::before { content: ""; width: 10px; height: 10px; border-radius: 50%; background: var(--muted); }
.live[data-live="live"]::before { background: var(--ok); }
.live[data-live="offline"]::before { background: var(--bad); }
main.view { padding: 12px 16px 24px; }
.view h2 { font-size: 18px; margin: 4px 0 12px; }
.view h3 { font-size: 15px; margin: 16px 0 8px; }
.view h4 { font-size: 14px; margin: 12px 0 6px; }
.muted { color: var(--muted); }
.toolbar { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 8px 12px; margin-bottom: 12px; }
.toolbar > * { max-width: 100%; }
.field { display: flex; flex-direction: column; gap: 2px; min-width: 0; max-width: 100%; }
.field select { max-width: 22rem; }
.field input[type="number"] { width: 8rem; }
.field > span, .field > label { font-size: 12px; font-weight: 600; color: var(--muted); }
.check { display: inline-flex; align-items: center; gap: 6px; }
input, select, button { font: inherit; color: var(--fg); }
input, select { padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); max-width: 100%; }
input[type="checkbox"] { padding: 0; }
button { padding: 5px 12px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); cursor: pointer; }
button:hover { border-color: var(--muted); }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--bg); font-weight: 600; }
button.danger { color: var(--bad); }
button:disabled { opacity: 0.6; cursor: default; }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; contain: content; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); background: var(--panel); white-space: nowrap; }
tbody tr:last-child td { border-bottom: 0; }
tr.selected td { background: var(--info-bg); }
td.path { word-break: break-all; }
td.num, th.num { text-align: right; white-space: nowrap; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600;
  background: var(--panel); border: 1px solid var(--line); white-space: nowrap; }
.badge.s2xx, .badge.ok { background: var(--ok-bg); color: var(--ok); border-color: transparent; }
.badge.s3xx, .badge.s1xx, .badge.info { background: var(--info-bg); color: var(--fg); border-color: transparent; }
.badge.s4xx, .badge.warn { background: var(--warn-bg); color: var(--warn); border-color: transparent; }
.badge.s5xx, .badge.sreset, .badge.bad { background: var(--bad-bg); color: var(--bad); border-color: transparent; }
.split { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; align-items: start; }
.split.single { grid-template-columns: minmax(0, 1fr); }
.pane { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; background: var(--bg); min-width: 0; }
.pane-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; justify-content: space-between; }
.pane-head h3 { margin: 0; word-break: break-all; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 12px; margin: 8px 0; }
.facts dt { color: var(--muted); font-weight: 600; }
.facts dd { margin: 0; word-break: break-all; }
.curl { display: flex; gap: 8px; align-items: flex-start; }
.curl pre { flex: 1; }
.note { padding: 8px 10px; border-radius: 6px; background: var(--info-bg); margin: 8px 0; }
.error { padding: 8px 10px; border-radius: 6px; background: var(--bad-bg); color: var(--bad); margin: 8px 0; }
.error ul, .note ul { margin: 4px 0 0; padding-left: 20px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; min-width: 0; }
.card h3 { margin: 0 0 4px; font-size: 14px; word-break: break-all; }
.row { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; }
.counts { display: flex; flex-wrap: wrap; gap: 4px; margin: 0; padding: 0; list-style: none; }
form.panel { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin-bottom: 16px; background: var(--panel); }
form.panel fieldset { border: 0; padding: 0; margin: 0; min-width: 0; }
form.panel legend { font-weight: 600; padding: 0; margin-bottom: 8px; }
progress { width: 200px; height: 12px; }
details > summary { cursor: pointer; }
.account { gap: 6px 8px; }
form.signin { max-width: 34rem; margin: 24px auto; display: flex; flex-direction: column; gap: 12px; }
form.signin h2 { margin: 0; }
form.signin p { margin: 0; }
form.signin .field input { width: 100%; }
form.signin fieldset.choice legend { font-size: 12px; font-weight: 600; color: var(--muted); margin-bottom: 4px; }
form.signin button.primary { align-self: flex-start; }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); border: 0; }
@media (max-width: 900px) {
  .split { grid-template-columns: minmax(0, 1fr); }
  .live { margin-left: 0; }
  main.view { padding: 10px 10px 20px; }
  .cards { grid-template-columns: minmax(0, 1fr); }
  .field select { max-width: 100%; }
  .hide-narrow { display: none; }
}
`;
