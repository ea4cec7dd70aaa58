// The Transync page: the connection's state (a wrong key, an unreachable service), the handshake's
// warnings and the locales, the queue and the last errors, the site's counts per language, the
// open conflicts and the units with work, with links to their entries and to the dashboard.
import { Alert, Box, Button, Flex, Link, Table, Tbody, Td, Th, Thead, Tr, Typography } from "@strapi/design-system";
import { Layouts, Page, useFetchClient } from "@strapi/strapi/admin";
import * as React from "react";
import { StateBadge } from "../components/StateBadge";
import { CONNECTION, errorText } from "../shared";
import { useAction } from "../components/useAction";

interface Counts {
  code: string;
  ok: number;
  stale: number;
  review: number;
  missing: number;
  attention: number;
}
interface Overview {
  service: { url: string };
  connection: { state: string; message: string | null; at: string };
  handshake: { at: string; warnings: string[]; reviewMode: string } | null;
  locales: { source: string; targets: { locale: string; language: string; atSite: boolean | null; writable: boolean }[]; notInStrapi: string[] };
  backfill: string[];
  jobs: { policy: string; active: { id: number; type: string; status: string; languages: string[]; done_segments: number; estimated_segments: number }[] };
  queue: { pending: number; failing: { unit: string; kind: string; attempts: number; error: string }[] };
  errors: { at: string; message: string }[];
  conflicts: { unit: string; label: string | null; locale: string; count: number; path: string | null }[];
  webhook: { registered: boolean };
  site: { units_total: number; segments_total: number; languages: Counts[] } | null;
  units: { external_key: string; label: string; path: string; dashboard_url: string; languages: { code: string; missing: number; stale: number; review: number; attention: number }[] }[];
  moreUnits: boolean;
  canStartJobs: boolean;
}

const when = (at: string) => new Date(at).toLocaleString();

export function HomePage() {
  const { get, post } = useFetchClient();
  const [data, setData] = React.useState<Overview | null>(null);
  const [failed, setFailed] = React.useState<string | null>(null);

  const load = React.useCallback(async () => {
    try {
      setData((await get<Overview>("/transync/overview")).data);
      setFailed(null);
    } catch (error) {
      setFailed(errorText(error));
    }
  }, [get]);
  React.useEffect(() => {
    void load();
  }, [load]);

  const { busy, act } = useAction(load);

  if (failed) return <Page.Error />;
  if (!data) return <Page.Loading />;
  const connection = CONNECTION[data.connection.state] ?? CONNECTION.error;
  const missingAtSite = data.locales.targets.filter((t) => t.atSite === false);
  const notInStrapi = data.locales.notInStrapi;
  const them = (n: number) => (n === 1 ? "it" : "them");

  return (
    <Page.Main>
      <Page.Title>Transync</Page.Title>
      <Layouts.Header
        title="Transync"
        subtitle={`Translations of this Strapi's content, kept in step by ${data.service.url}`}
        primaryAction={
          <Flex gap={2}>
            <Button variant="secondary" loading={busy} onClick={() => act(() => post("/transync/sync", {}), "Sync done.")}>
              Sync now
            </Button>
            {data.canStartJobs ? (
              <Button loading={busy} onClick={() => act(() => post("/transync/jobs", {}), "Translation job started.")}>
                Translate what changed
              </Button>
            ) : null}
          </Flex>
        }
      />
      <Layouts.Content>
        <Flex direction="column" alignItems="stretch" gap={6}>
          <Section title="Connection">
            <Flex gap={3} alignItems="center">
              <StateBadge variant={connection.variant}>{connection.label}</StateBadge>
              <Typography variant="omega">{data.connection.message ?? `Last checked ${when(data.connection.at)}.`}</Typography>
            </Flex>
            <Typography variant="pi" textColor="neutral600" tag="p" marginTop={2}>
              {data.webhook.registered
                ? "The service notifies this Strapi when translations are ready (webhook registered)."
                : "No webhook: translations are pulled at each scheduled sync (set webhookBaseUrl to have them at once)."}{" "}
              Jobs start {data.jobs.policy === "on_change" ? "after every change" : "only when asked"}.
              {data.handshake ? ` Review mode: ${data.handshake.reviewMode}.` : ""}
            </Typography>
          </Section>

          {data.handshake?.warnings.length || missingAtSite.length || notInStrapi.length || data.backfill.length ? (
            <Flex direction="column" alignItems="stretch" gap={2}>
              {data.handshake?.warnings.map((w) => (
                <Alert key={w} variant="warning" title="The service warns" closeLabel="Close">
                  {w}
                </Alert>
              ))}
              {notInStrapi.length ? (
                <Alert variant="warning" title="Locales this Strapi lacks" closeLabel="Close">
                  The site translates into{" "}
                  {notInStrapi.map((code, i) => (
                    <React.Fragment key={code}>
                      {i ? ", " : ""}
                      <code>{code}</code>
                    </React.Fragment>
                  ))}
                  , but this Strapi has no such locale. Add {them(notInStrapi.length)} in{" "}
                  <Link href="/admin/settings/internationalization">Settings → Internationalization</Link> with the same code
                  {notInStrapi.length === 1 ? "" : "s"} (or map other codes with the plugin's <code>locales</code> setting); the next sync translates every entry into{" "}
                  {them(notInStrapi.length)}.
                </Alert>
              ) : null}
              {missingAtSite.length ? (
                <Alert variant="warning" title="Locales the site lacks" closeLabel="Close">
                  {missingAtSite.map((t) => t.locale).join(", ")}: not translated until the site's owner adds {missingAtSite.length === 1 ? "it" : "them"} in the dashboard; then a job
                  back-fills {missingAtSite.length === 1 ? "it" : "them"}.
                </Alert>
              ) : null}
              {data.backfill.length ? (
                <Alert variant="default" title="New languages" closeLabel="Close">
                  {data.backfill.join(", ")}: waiting for a job to back-fill {data.backfill.length === 1 ? "it" : "them"}.
                </Alert>
              ) : null}
            </Flex>
          ) : null}

          <Section title="Languages">
            {data.locales.targets.length === 0 ? (
              <Typography variant="omega" tag="p">
                This Strapi has no locale besides {data.locales.source}, so nothing is translated yet: add the site's languages in Settings → Internationalization.
              </Typography>
            ) : (
              <Table colCount={7} rowCount={(data.site?.languages.length ?? 0) + 1}>
                <Thead>
                  <Tr>
                    <Th>
                      <Typography variant="sigma">Locale</Typography>
                    </Th>
                    <Th>
                      <Typography variant="sigma">Up to date</Typography>
                    </Th>
                    <Th>
                      <Typography variant="sigma">In review</Typography>
                    </Th>
                    <Th>
                      <Typography variant="sigma">Stale</Typography>
                    </Th>
                    <Th>
                      <Typography variant="sigma">Missing</Typography>
                    </Th>
                    <Th>
                      <Typography variant="sigma">Held back</Typography>
                    </Th>
                    <Th>
                      <Typography variant="sigma">At the site</Typography>
                    </Th>
                  </Tr>
                </Thead>
                <Tbody>
                  {data.locales.targets.map((t) => {
                    const c = data.site?.languages.find((l) => l.code === t.language);
                    return (
                      <Tr key={t.locale}>
                        <Td>
                          <Typography fontWeight="bold">{t.locale}</Typography>
                        </Td>
                        <Td>
                          <Typography>{c?.ok ?? "–"}</Typography>
                        </Td>
                        <Td>
                          <Typography>{c?.review ?? "–"}</Typography>
                        </Td>
                        <Td>
                          <Typography>{c?.stale ?? "–"}</Typography>
                        </Td>
                        <Td>
                          <Typography>{c?.missing ?? "–"}</Typography>
                        </Td>
                        <Td>
                          <Typography>{c?.attention ?? "–"}</Typography>
                        </Td>
                        <Td>
                          <Typography>{t.atSite === null ? "not known yet" : t.atSite ? (t.writable ? "translated" : "not writable") : "missing"}</Typography>
                        </Td>
                      </Tr>
                    );
                  })}
                </Tbody>
              </Table>
            )}
          </Section>

          <Section title="Queue">
            <Typography variant="omega" tag="p">
              {data.queue.pending === 0 ? "Nothing waits to be sent." : `${data.queue.pending} change${data.queue.pending === 1 ? "" : "s"} wait${data.queue.pending === 1 ? "s" : ""} to be sent.`}{" "}
              {data.jobs.active.length ? `Jobs running: ${data.jobs.active.map((j) => `#${j.id} (${j.done_segments}/${j.estimated_segments})`).join(", ")}.` : ""}
            </Typography>
            {data.queue.failing.length ? (
              <Box tag="ul" marginTop={2}>
                {data.queue.failing.map((f) => (
                  <Typography tag="li" key={`${f.kind}:${f.unit}`} variant="pi" textColor="danger600">
                    {f.unit} ({f.kind}, {f.attempts} attempts): {f.error}
                  </Typography>
                ))}
              </Box>
            ) : null}
          </Section>

          {data.conflicts.length ? (
            <Section title="Conflicts with editors' changes">
              <Box tag="ul">
                {data.conflicts.map((c) => (
                  <Typography tag="li" key={`${c.unit}:${c.locale}`} variant="omega">
                    {c.path ? <Link href={c.path}>{c.label ?? c.unit}</Link> : (c.label ?? c.unit)} in {c.locale}: {c.count} conflict{c.count === 1 ? "" : "s"}
                  </Typography>
                ))}
              </Box>
            </Section>
          ) : null}

          <Section title="Entries with work">
            {data.units.length === 0 ? (
              <Typography variant="omega">{!data.site
                  ? "Not available until the service answers (see Connection)."
                  : data.site.units_total === 0
                    ? `Nothing sent yet: entries are sent when they are published in ${data.locales.source}.`
                    : "Every entry is translated and approved."}</Typography>
            ) : (
              <Table colCount={3} rowCount={data.units.length + 1}>
                <Thead>
                  <Tr>
                    <Th>
                      <Typography variant="sigma">Entry</Typography>
                    </Th>
                    <Th>
                      <Typography variant="sigma">Work</Typography>
                    </Th>
                    <Th>
                      <Typography variant="sigma">Dashboard</Typography>
                    </Th>
                  </Tr>
                </Thead>
                <Tbody>
                  {data.units.map((u) => (
                    <Tr key={u.external_key}>
                      <Td>{u.path ? <Link href={u.path}>{u.label || u.external_key}</Link> : <Typography>{u.label || u.external_key}</Typography>}</Td>
                      <Td>
                        <Typography variant="pi">
                          {u.languages
                            .map((l) => `${l.code}: ${[l.review && `${l.review} in review`, l.stale && `${l.stale} stale`, l.missing && `${l.missing} missing`, l.attention && `${l.attention} held back`].filter(Boolean).join(", ")}`)
                            .join("; ")}
                        </Typography>
                      </Td>
                      <Td>
                        {u.dashboard_url ? (
                          <Link href={u.dashboard_url} isExternal>
                            Open
                          </Link>
                        ) : (
                          "–"
                        )}
                      </Td>
                    </Tr>
                  ))}
                </Tbody>
              </Table>
            )}
            {data.moreUnits ? (
              <Typography variant="pi" tag="p" marginTop={2}>
                The first 50 are shown; the dashboard lists them all.
              </Typography>
            ) : null}
          </Section>

          <Section title="Last errors">
            {data.errors.length === 0 ? (
              <Typography variant="omega">None.</Typography>
            ) : (
              <Box tag="ul">
                {data.errors.map((e) => (
                  <Typography tag="li" key={`${e.at}${e.message}`} variant="pi">
                    {when(e.at)}: {e.message}
                  </Typography>
                ))}
              </Box>
            )}
          </Section>
        </Flex>
      </Layouts.Content>
    </Page.Main>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Box background="neutral0" padding={6} shadow="tableShadow" hasRadius tag="section" aria-label={title}>
      <Typography variant="delta" tag="h2" marginBottom={4}>
        {title}
      </Typography>
      <Box marginTop={3}>{children}</Box>
    </Box>
  );
}
