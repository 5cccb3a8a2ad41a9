import type { RewriteInfo } from '../../lib/events'

/** How a follow-up was understood: its standalone form (re-ask to change it), or why it was sent as asked. */
export function RewriteNote({ rewrite, onEdit }: { rewrite: RewriteInfo; onEdit?: (question: string) => void }) {
  const prefer = rewrite.prefer ?? []
  return (
    <div className="rewrite muted small" data-testid="rewrite">
      {rewrite.rewritten && (
        <div>
          Understood as: <q data-testid="understood-as">{rewrite.question}</q>{' '}
          {onEdit && (
            <button className="link" data-testid="edit-understood" onClick={() => onEdit(rewrite.question)} title="Put this question in the box to correct it and ask again">
              Edit
            </button>
          )}
        </div>
      )}
      {rewrite.error && (
        <div className="notice" data-testid="rewrite-error">
          The follow-up could not be rewritten ({rewrite.error}); answered as asked.
        </div>
      )}
      {rewrite.reason === 'off' && <div>Follow-up rewriting is off: answered as asked.</div>}
      {prefer.length > 0 && <div data-testid="prefer">Searching first in: {prefer.map((d) => d.name).join(', ')}</div>}
    </div>
  )
}
