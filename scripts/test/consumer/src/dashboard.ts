/**
 * A dev build's or a Storybook decorator's use of the dashboard over the in-page mock (MSW): type-checked
 * by the consumer test under the strictest settings with no preact installed, and bundled for the browser.
 */
import { type DashboardOptions, mountDashboard } from "agent-platform-mock-kit/dashboard";

export function showMock(element: HTMLElement, baseUrl: string): () => void {
  const options: DashboardOptions = { baseUrl, view: "webhooks", deepLinks: false };
  const mounted = mountDashboard(element, options);
  return () => mounted.unmount();
}

// @ts-expect-error: the views are named, not any text
export const wrongView: DashboardOptions = { view: "everything" };
