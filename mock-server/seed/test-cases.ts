/**
 * Simulation test cases (2.7). A test case belongs to one agent, and its mockToolData entries point
 * at stored mock tool data records (their alias, name and status code are copied from the record,
 * so the reference never disagrees with what it references).
 */
import type { MockToolData, TestCase } from "../store/records.js";
import { agentReference, type BuildContext } from "./context.js";

type MockToolDataRef = NonNullable<TestCase["mockToolData"]>[number];

const SCENARIOS = [
  {
    label: "Caller reschedules an appointment",
    userPrompt: "You are a busy parent who needs to move tomorrow's 9:30 appointment to next week, mornings only.",
    successCriteria: "The agent offers at least one new slot and confirms the new time back to the caller.",
  },
  {
    label: "Angry customer asks for a refund",
    userPrompt: "You were charged twice for the same order and you are annoyed. Demand a refund.",
    successCriteria: "The agent does not promise a refund, apologises and offers a transfer to billing.",
  },
  {
    label: "Where is my order",
    userPrompt: "You ordered shoes a week ago and want to know when they will arrive. Your order number is A-1042.",
    successCriteria: "The agent looks up the order and tells the caller the carrier and the expected delivery time.",
  },
  {
    label: "Unknown order number",
    userPrompt: "Ask about order Z-0000, which does not exist. Insist a little.",
    successCriteria: "The agent says the order cannot be found and offers to open a ticket.",
  },
  {
    label: "Caller wants a human",
    userPrompt: "From the first sentence on, ask to speak to a real person.",
    successCriteria: "The agent transfers the call without arguing.",
  },
  {
    label: "Balance enquiry",
    userPrompt: "You want to know how much you owe and when it is due.",
    successCriteria: "The agent states the balance and the due date correctly.",
  },
  {
    label: "Silent caller",
    userPrompt: "Say hello, then stay silent for the rest of the conversation.",
    successCriteria: "The agent sends reminders and ends the call politely.",
  },
  {
    label: "Spanish speaker",
    userPrompt: "Speak only Spanish and ask for the opening hours.",
    successCriteria: "The agent answers in Spanish with the correct opening hours.",
  },
];

/** The fixed scenarios, in order, so the seed can use each one once. */
export const TEST_SCENARIOS = SCENARIOS;

export function refToMockToolData(record: MockToolData): MockToolDataRef {
  return {
    toolAlias: record.toolAlias,
    mockToolDataId: record.mockToolDataId,
    name: record.name,
    statusCode: record.statusCode,
  };
}

export function buildTestCase(ctx: BuildContext, partial: Partial<TestCase> = {}): TestCase {
  const { faker, workspace } = ctx;
  const scenario = faker.helpers.arrayElement(SCENARIOS);
  const agent = agentReference(ctx, partial.agent);
  const stored = workspace.collections.mockToolData;
  const mockToolData =
    partial.mockToolData?.map((ref) => {
      const record = stored.get(ref.mockToolDataId);
      return record ? refToMockToolData(record) : ref;
    }) ?? (stored.size > 0 ? faker.helpers.arrayElements(stored.all(), { min: 0, max: 2 }).map(refToMockToolData) : []);
  return {
    testCaseId: partial.testCaseId ?? faker.string.uuid(),
    label: partial.label ?? scenario.label,
    agent,
    workspaceId: workspace.workspaceId,
    llmModel:
      partial.llmModel ??
      workspace.collections.agents.get(agent.agentId)?.agentSettings.llmModel ??
      "small-general-model",
    mockData: partial.mockData ?? [
      { variableName: "customerName", value: faker.person.fullName() },
      ...(faker.datatype.boolean() ? [{ variableName: "accountId", value: `ACC-${faker.string.numeric(6)}` }] : []),
    ],
    mockToolData,
    userPrompt: partial.userPrompt ?? scenario.userPrompt,
    attempt: partial.attempt ?? faker.number.int({ min: 1, max: 3 }),
    successCriteria: partial.successCriteria ?? scenario.successCriteria,
  };
}
