import type { Membership } from "../../control/people.control";
import { Empty, Layout, type Viewer } from "./layout";

export interface HomeSite {
  id: number;
  name: string;
  organizationId: number;
  sourceLanguage: string;
  targetLanguages: { code: string }[];
}

export function HomePage(props: { viewer: Viewer; memberships: Membership[]; sites: HomeSite[]; notice?: string | null; signUpOpen?: boolean }) {
  return (
    <Layout title="Your sites" viewer={props.viewer} notice={props.notice}>
      <h1>Your sites</h1>
      {props.memberships.length === 0 ? (
        <Empty title="You are not a member of any organization yet.">
          {props.signUpOpen ? (
            <p>
              <a class="button" href="/dashboard/organizations/new">
                Create your organization
              </a>{" "}
              or ask an owner of an existing one to invite you.
            </p>
          ) : (
            <p>Ask an owner or admin of your organization for an invitation link.</p>
          )}
        </Empty>
      ) : null}
      {props.memberships.map((m) => {
        const sites = props.sites.filter((s) => s.organizationId === m.organizationId);
        return (
          <section class="card" aria-labelledby={`org-${m.organizationId}`}>
            <div class="card-head">
              <h2 id={`org-${m.organizationId}`}>{m.organization}</h2>
              <span class="muted">You are {m.role === "editor" ? "an editor" : m.role === "admin" ? "an admin" : "an owner"}</span>
            </div>
            <p class="links">
              <a href={`/dashboard/organizations/${m.organizationId}/usage`}>Usage</a>
              <a href={`/dashboard/organizations/${m.organizationId}/members`}>Members</a>
              {m.role === "owner" ? <a href={`/dashboard/organizations/${m.organizationId}/audit`}>Audit log</a> : null}
              {m.role === "owner" ? <a href={`/dashboard/organizations/${m.organizationId}/sites/new`}>Add a site</a> : null}
            </p>
            {sites.length ? (
              <table>
                <caption class="sr-only">Sites of {m.organization}</caption>
                <thead>
                  <tr>
                    <th scope="col">Site</th>
                    <th scope="col">Translates</th>
                  </tr>
                </thead>
                <tbody>
                  {sites.map((s) => (
                    <tr>
                      <td>
                        <a href={`/dashboard/sites/${s.id}`}>{s.name}</a>
                      </td>
                      <td>
                        {s.sourceLanguage} → {s.targetLanguages.map((t) => t.code).join(", ") || "no target language yet"}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <Empty title="No sites yet.">
                {m.role === "owner" ? (
                  <p>
                    <a href={`/dashboard/organizations/${m.organizationId}/sites/new`}>Add your first site</a>
                  </p>
                ) : (
                  <p>Sites are set up by the operator of this service; ask them to add yours.</p>
                )}
              </Empty>
            )}
          </section>
        );
      })}
    </Layout>
  );
}
