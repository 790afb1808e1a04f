import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Invitation, Member, MemberList } from '../../accounts/schema.ts';
import { ROLES, type Role } from '../../shared/roles.ts';
import { NotAllowed, useAccess } from './access.tsx';
import { call, enc } from './api.ts';
import { Confirm, CopyButton, Problem, when } from './widgets.tsx';

const ROLE_HELP: Record<Role, string> = {
  owner: 'everything, members, keys and store connectors included',
  editor: 'products and paywalls: write, publish, roll back; reads results',
  analyst: 'reads everything but secrets: results, exports, the activity log',
  viewer: 'reads configuration and results',
};

/** The project's members: invite, change a role, remove (owners); read by analysts. */
export function Members({ secret, project, me }: { secret: string; project: string; me: string | null }): JSX.Element {
  const { can } = useAccess();
  const [members, setMembers] = useState<Member[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [invited, setInvited] = useState<(Invitation & { email: string }) | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const base = `/api/projects/${enc(project)}`;
  const refresh = () => call<MemberList>(secret, 'GET', `${base}/members`).then(({ body }) => setMembers(body.members), setError);
  useEffect(() => {
    if (can('analyze')) refresh();
  }, [secret, project]);

  const act = async (run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
      await refresh();
    } catch (failure) {
      setError(failure);
    }
  };
  const invite = (event: Event) => {
    event.preventDefault();
    return act(async () => {
      const { body } = await call<Invitation>(secret, 'POST', `${base}/invitations`, { body: { email, role } });
      setInvited({ ...body, email });
      setEmail('');
    });
  };
  const change = (member: Member, next: Role) => act(() => call(secret, 'PATCH', `${base}/members/${enc(member.id)}`, { body: { role: next } }));
  const remove = (member: Member) => {
    setRemoving(null);
    return act(() => call(secret, 'DELETE', `${base}/members/${enc(member.id)}`));
  };
  const administer = can('administer');
  return (
    <section aria-labelledby="members-title">
      <div class="page-head">
        <h1 id="members-title">Members</h1>
      </div>
      <NotAllowed permission="analyze" what="Seeing the members" />
      <NotAllowed permission="administer" what="Inviting, changing and removing members" />
      <Problem error={error} />
      {administer ? (
        <form class="card" onSubmit={invite} aria-labelledby="invite-title">
          <h2 id="invite-title">Invite someone</h2>
          <div class="fields">
            <div class="field">
              <label for="invite-email">Email</label>
              <input id="invite-email" type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
            </div>
            <div class="field">
              <label for="invite-role">Role</label>
              <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} aria-describedby="invite-role-help">
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
              <small id="invite-role-help" class="muted">
                {ROLE_HELP[role]}
              </small>
            </div>
            <button type="submit" class="button primary">
              Create invitation link
            </button>
          </div>
        </form>
      ) : null}
      {invited ? (
        <div class="banner banner-success created-key" role="status">
          <p>
            <strong>Send this link to {invited.email}.</strong> It works once, until {when(invited.expires_at)}, and is shown only now.
          </p>
          <div class="row">
            <label class="visually-hidden" for="invitation-url">
              Invitation link
            </label>
            <input id="invitation-url" class="code" readOnly value={invited.url} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={invited.url} label="Copy link" />
            <button type="button" class="button" onClick={() => setInvited(null)}>
              Done
            </button>
          </div>
        </div>
      ) : null}
      {members === null ? null : (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Person</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.map((member) => (
                <tr key={member.id}>
                  <td data-label="Person">
                    {member.name}
                    {member.name === member.email ? null : <span class="muted small"> {member.email}</span>}
                    {member.id === me ? <span class="badge badge-draft">you</span> : null}
                  </td>
                  <td data-label="Role">
                    {administer ? (
                      <select aria-label={`Role of ${member.email}`} value={member.role} onChange={(e) => change(member, e.currentTarget.value as Role)}>
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      member.role
                    )}
                  </td>
                  <td data-label="Joined">{when(member.joined_at)}</td>
                  <td class="actions">
                    {administer ? (
                      <button type="button" class="button small danger" onClick={() => setRemoving(member)}>
                        Remove<span class="visually-hidden"> {member.email}</span>
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Confirm
        open={removing !== null}
        title={`Remove ${removing?.email ?? ''}?`}
        confirmLabel="Remove"
        danger
        onConfirm={() => removing && remove(removing)}
        onCancel={() => setRemoving(null)}
      >
        <p>Their next request in this project is refused. Their account stays, with its roles in other projects.</p>
      </Confirm>
    </section>
  );
}
