// A state's badge. The design system's light danger badge (danger600 on danger100) falls short of
// WCAG AA contrast for its small bold text (axe: color-contrast), so danger is drawn solid.
import { Badge } from "@strapi/design-system";
import type * as React from "react";

type Variant = "success" | "primary" | "danger" | "warning" | "neutral" | "secondary" | "alternative";

export function StateBadge({ variant, title, children }: { variant: Variant; title?: string; children: React.ReactNode }) {
  if (variant === "danger")
    return (
      <Badge backgroundColor="danger600" textColor="neutral0" title={title}>
        {children}
      </Badge>
    );
  return (
    <Badge variant={variant} title={title}>
      {children}
    </Badge>
  );
}
