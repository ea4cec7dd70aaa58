import type { QAIssue } from "../../api/schemas";
import { Badge } from "../pages/layout";

/** A translation's QA findings, errors and warnings, as the unit matrix and the review queue show them. */
export function Findings(props: { issues: QAIssue[] | undefined }) {
  if (!props.issues?.length) return null;
  return (
    <ul class="findings">
      {props.issues.map((i) => (
        <li class={i.severity}>
          <Badge state={i.severity} label={i.severity === "error" ? "QA error" : "QA warning"} /> <span>{i.message}</span>
        </li>
      ))}
    </ul>
  );
}
