import { useTranslation } from '../../i18n'
import type { RewriteInfo } from '../../lib/events'

/** How a follow-up was understood: its standalone form (re-ask to change it), or why it was sent as asked. */
export function RewriteNote({ rewrite, onEdit }: { rewrite: RewriteInfo; onEdit?: (question: string) => void }) {
  const { t } = useTranslation()
  const prefer = rewrite.prefer ?? []
  return (
    <div className="rewrite muted small" data-testid="rewrite">
      {rewrite.rewritten && (
        <div>
          {t('rewrite.understoodAs')} <q data-testid="understood-as">{rewrite.question}</q>{' '}
          {onEdit && (
            <button className="link" data-testid="edit-understood" onClick={() => onEdit(rewrite.question)} title={t('rewrite.editTitle')}>
              {t('rewrite.edit')}
            </button>
          )}
        </div>
      )}
      {rewrite.error && (
        <div className="notice" data-testid="rewrite-error">
          {t('rewrite.failed', { error: rewrite.error })}
        </div>
      )}
      {rewrite.reason === 'off' && <div>{t('rewrite.off')}</div>}
      {prefer.length > 0 && <div data-testid="prefer">{t('rewrite.prefer', { names: prefer.map((d) => d.name).join(t('common.listSeparator')) })}</div>}
    </div>
  )
}
