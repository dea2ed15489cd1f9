import type { AnswerInteractionBody, Interaction } from '@outrigger/host-api';
import { inboxItems } from '../data/hostState.ts';
import { useServices } from './appContext.ts';
import { useValue } from './hooks.ts';
import { NotificationToggle } from './NotificationToggle.tsx';
import { PromptCard } from './PromptCard.tsx';
import { sessionHref } from './route.ts';
import { Topbar } from './Topbar.tsx';

/** Every approval, question and plan waiting across sessions, answerable right here. */
export function InboxView({ onOpenSidebar }: { onOpenSidebar: () => void }) {
  const { host, client } = useServices();
  const screen = useValue(host.screen);
  const items = inboxItems(screen.view);
  const answer = (interaction: Interaction) => async (body: AnswerInteractionBody) => {
    await client.call('answerInteraction', {
      params: { id: interaction.session_id, requestId: interaction.requestId },
      body,
    });
    host.interactionClosed(interaction.requestId);
  };
  return (
    <section className="conversation" aria-labelledby="inbox-heading">
      <Topbar
        heading="Needs you"
        headingId="inbox-heading"
        subtitle={<span className="subtitle">Approvals, questions and plans waiting in every session</span>}
        onOpenSidebar={onOpenSidebar}
      >
        <NotificationToggle />
      </Topbar>
      <div className="inbox">
        <div className="column" style={{ paddingTop: 16 }}>
          {items.length === 0 ? (
            <div className="empty">
              <h2>Nothing waits for you</h2>
              <p>When an agent asks for permission or a decision, it shows up here and in its session.</p>
            </div>
          ) : (
            items.map((interaction) => {
              const session = screen.view.sessions[interaction.session_id];
              return (
                <div key={interaction.requestId} className="inbox-item">
                  <div className="inbox-item-head">
                    <a href={sessionHref(interaction.session_id)}>{session?.title ?? interaction.session_id}</a>
                    {interaction.agentId !== null && <span>· subagent {interaction.agentId}</span>}
                    <span>· {new Date(interaction.createdAt).toLocaleTimeString()}</span>
                  </div>
                  <PromptCard interaction={interaction} answer={answer(interaction)} />
                </div>
              );
            })
          )}
        </div>
      </div>
    </section>
  );
}
