// The content manager's edit-view panel: each target locale's state for this entry (up to date,
// translating, in review, stale, conflict), its conflicts with "take the new one" / "keep mine",
// and "translate now". Everything comes from /transync/entries/…, on the admin's own session.
import { Box, Button, Flex, Link, Typography } from "@strapi/design-system";
import { useFetchClient } from "@strapi/strapi/admin";
import * as React from "react";
import { useLocation } from "react-router-dom";
import { errorText, type LocaleState, STATES } from "../shared";
import { StateBadge } from "./StateBadge";
import { useAction } from "./useAction";

interface Conflict {
  field: string;
  key: string | null;
  mine: string;
  theirs: string;
}
interface LocaleRow {
  locale: string;
  language: string;
  state: LocaleState;
  counts: { ok: number; stale: number; review: number; missing: number; attention: number } | null;
  conflicts: Conflict[];
}
interface EntryState {
  tracked: boolean;
  published?: boolean;
  problem?: string | null;
  dashboardUrl?: string | null;
  locales?: LocaleRow[];
  canStartJobs?: boolean;
  canEdit?: boolean;
}

interface PanelProps {
  model: string;
  documentId?: string;
}

/** The panel's description for the content manager (a title and its content), none while an entry is being created. */
export const EditViewPanel = ({ model, documentId }: PanelProps) => {
  if (!documentId || documentId === "create") return null;
  return { title: "Transync", content: <PanelContent model={model} documentId={documentId} /> };
};

function PanelContent({ model, documentId }: { model: string; documentId: string }) {
  const { get, post } = useFetchClient();
  const current = new URLSearchParams(useLocation().search).get("plugins[i18n][locale]");
  const [state, setState] = React.useState<EntryState | null>(null);
  const [failed, setFailed] = React.useState<string | null>(null);
  const url = `/transync/entries/${encodeURIComponent(model)}/${encodeURIComponent(documentId)}`;

  const load = React.useCallback(async () => {
    try {
      const { data } = await get<EntryState>(url);
      setState(data);
      setFailed(null);
    } catch (error) {
      setFailed(errorText(error));
    }
  }, [get, url]);

  React.useEffect(() => {
    void load();
  }, [load]);
  const translating = state?.locales?.some((l) => l.state === "translating");
  React.useEffect(() => {
    if (!translating) return;
    const timer = setInterval(() => void load(), 5000);
    return () => clearInterval(timer);
  }, [translating, load]);

  const { busy, act } = useAction(load);

  if (failed) return <Typography variant="pi">Transync: {failed}</Typography>;
  if (!state) return <Typography variant="pi">Loading Transync's state…</Typography>;
  if (!state.tracked) return <Typography variant="pi">This content type is not translated by Transync.</Typography>;

  return (
    <Flex direction="column" alignItems="stretch" gap={3} width="100%">
      {state.problem ? (
        <Typography variant="pi" textColor="danger600">
          {state.problem}
        </Typography>
      ) : null}
      <Flex tag="ul" direction="column" alignItems="stretch" gap={2}>
        {state.locales?.map((row) => (
          <Box tag="li" key={row.locale}>
            <Flex justifyContent="space-between" gap={2}>
              <Typography variant="omega" fontWeight={row.locale === current ? "bold" : "regular"}>
                {row.locale}
                {row.language !== row.locale ? ` (${row.language})` : ""}
              </Typography>
              <StateBadge variant={STATES[row.state].variant} title={STATES[row.state].hint}>
                {STATES[row.state].label}
              </StateBadge>
            </Flex>
            {row.conflicts.map((c) => (
              <ConflictBox
                key={c.key ?? c.field}
                conflict={c}
                locale={row.locale}
                canEdit={state.canEdit === true}
                busy={busy}
                onChoose={(choice) =>
                  act(
                    () => post(`${url}/conflicts`, { locale: row.locale, target: c.key ?? c.field, choice }),
                    choice === "take" ? `The new text is in the ${row.locale} draft: reload the page to see it.` : "Your text stays.",
                  )
                }
              />
            ))}
          </Box>
        ))}
      </Flex>
      {state.canStartJobs && state.published ? (
        <Button variant="secondary" fullWidth loading={busy} onClick={() => act(() => post(`${url}/translate`, {}), "Translation started: the drafts are written when it is done.")}>
          Translate now
        </Button>
      ) : null}
      {state.dashboardUrl ? (
        <Link href={state.dashboardUrl} isExternal>
          Open in the Transync dashboard
        </Link>
      ) : null}
    </Flex>
  );
}

function ConflictBox({ conflict, locale, canEdit, busy, onChoose }: { conflict: Conflict; locale: string; canEdit: boolean; busy: boolean; onChoose: (choice: "take" | "keep") => void }) {
  const where = conflict.key === null ? `the whole ${conflict.field} field` : `a paragraph of ${conflict.field}`;
  return (
    <Box marginTop={2} padding={3} background="danger100" borderColor="danger200" hasRadius>
      <Typography variant="pi" fontWeight="bold" tag="p">
        A new translation of {where} met your change in {locale}.
      </Typography>
      <Typography variant="pi" tag="p" marginTop={2}>
        Yours: {conflict.mine}
      </Typography>
      <Typography variant="pi" tag="p" marginTop={1}>
        New: {conflict.theirs}
      </Typography>
      {canEdit ? (
        <Flex gap={2} marginTop={2}>
          <Button size="S" variant="danger" disabled={busy} onClick={() => onChoose("take")}>
            Take the new one
          </Button>
          <Button size="S" variant="tertiary" disabled={busy} onClick={() => onChoose("keep")}>
            Keep mine
          </Button>
        </Flex>
      ) : null}
    </Box>
  );
}
