import { Overlay } from '../../components/Overlay'
import { Thumb } from '../../components/Thumb'
import { useOpenViewer } from '../../components/viewerContext'
import { i18n, useTranslation } from '../../i18n'
import type { CalculationInfo, Citation, CropInfo, ErrorInfo, Hit } from '../../lib/events'
import { formatNumber } from '../../lib/format'
import type { Step } from '../../lib/run'

/** StepCard draws one step of a run: thinking (collapsed), a search with its pages, a crop, a memory, a
 * calculation, an error. */
export function StepCard({ step }: { step: Step }) {
  const { t } = useTranslation()
  switch (step.type) {
    case 'think':
      return (
        <details className="card think" data-testid="step-think">
          <summary>{t('step.thinking')}</summary>
          <p className="think-text">{step.text}</p>
        </details>
      )
    case 'search':
      return <SearchCard query={step.query} hits={step.results ? (step.results.hits ?? []) : undefined} pending={!step.results} />
    case 'crop':
      return <CropCard crop={step.crop} />
    case 'calculation':
      return <CalculationCard calc={step.calculation} />
    case 'memorize':
      return (
        <div className="card memorize" data-testid="step-memorize">
          <div className="card-title">
            {t('step.memorised')} <code>{step.memorize.node_id}</code>
          </div>
          <p>{step.memorize.summary}</p>
          <ul className="mem-items">
            {(step.memorize.items ?? []).map((i) => (
              <li key={i.information_id} className={i.kept ? 'kept' : ''}>
                {i.information_id}
                {i.document_name ? ` · ${t('step.docPage', { doc: i.document_name, page: i.page })}` : ''} ·{' '}
                {t('step.priority', { score: i.priority_score })}
                {i.kept ? ` · ${t('step.kept')}` : i.is_useful ? '' : ` · ${t('step.notUseful')}`}
              </li>
            ))}
          </ul>
        </div>
      )
    case 'error':
      if (step.error.code.startsWith('context_')) {
        // The model's context window: the run goes on, but the model may not see all it was sent.
        return (
          <div className="card error-card context-warning" data-testid="step-context" role="alert">
            <div className="card-title">
              {step.error.context?.num_ctx ? t('step.contextTokens', { n: step.error.context.num_ctx }) : t('step.contextWindow')}
            </div>
            <ContextText error={step.error} />
          </div>
        )
      }
      return (
        <div className={'card error-card' + (step.error.recoverable ? ' recoverable' : '')} data-testid="step-error" role="status">
          <div className="card-title">
            {step.error.code === 'rerank' ? t('step.rerankFailed') : step.error.recoverable ? t('step.corrected') : t('step.error')}
          </div>
          <ErrorText error={step.error} />
        </div>
      )
  }
}

/** ContextText words a context warning in the window's language from its reason and numbers, with the backend's
 * English message on hover; a reason this window does not know shows the message. */
function ContextText({ error }: { error: ErrorInfo }) {
  const { t } = useTranslation()
  const key = `backend.context.${error.reason ?? ''}`
  const c = error.context
  if (!error.reason || !c || !i18n.exists(key)) return <p>{error.message}</p>
  const n = (v?: number) => formatNumber(v ?? 0)
  return (
    <p title={error.message} data-testid="context-reason">
      {t(key, {
        needed: n(c.needed),
        numCtx: n(c.num_ctx),
        modelMax: n(c.model_max),
        window: n(c.window),
        counted: n(c.server_counted),
        sent: n(c.estimated),
      })}
    </p>
  )
}

/** ErrorText says why a model call failed in the window's language when the backend named the reason, with the
 * backend's English message on hover (it carries the server's own words); otherwise the message. */
function ErrorText({ error }: { error: ErrorInfo }) {
  const { t } = useTranslation()
  const key = `backend.model.${error.reason ?? ''}`
  if (error.code.startsWith('model') && error.reason && i18n.exists(key)) {
    return (
      <p title={error.message} data-testid="error-reason">
        {t(key)}
      </p>
    )
  }
  return <p>{error.message}</p>
}

function SearchCard({ query, hits, pending }: { query: string; hits?: Hit[]; pending: boolean }) {
  const { t } = useTranslation()
  const open = useOpenViewer()
  const hitTitle = (h: Hit) =>
    baseTitle(h) +
    (h.rerank != null ? ' · ' + t('step.rerankTitle', { score: formatNumber(h.rerank, 3), rank: h.first_rank ?? 0 }) : '')
  const baseTitle = (h: Hit) =>
    h.shown
      ? t('step.hitTitleShown', { doc: h.document_name, page: h.page })
      : h.skipped
        ? t('step.hitTitleSkipped', { doc: h.document_name, page: h.page, reason: t(`step.skipped.${h.skipped}`, { defaultValue: h.skipped.replace('_', ' ') }) })
        : t('step.hitTitle', { doc: h.document_name, page: h.page })
  return (
    <div className="card search" data-testid="step-search">
      <div className="card-title">
        <span aria-hidden="true">⌕</span> {t('step.searched')} <q>{query}</q>
        {pending && <span className="muted"> …</span>}
      </div>
      {hits && hits.length === 0 && <p className="muted">{t('step.noPages')}</p>}
      {hits && hits.length > 0 && (
        <ul className="hit-strip">
          {hits.map((h) => (
            <li key={h.unit_id} className={h.shown ? 'shown' : 'not-shown'}>
              <button
                onClick={() => open({ documentId: Number(h.document_id), unitId: Number(h.unit_id), title: h.document_name })}
                title={hitTitle(h)}
                data-testid="step-hit"
              >
                <Thumb blob={h.thumbnail} unitId={Number(h.unit_id)} width={256} alt={t('step.hitAlt', { doc: h.document_name, page: h.page })} />
                <span className="hit-label">
                  {h.label ?? t('step.pageShort', { page: h.page })}
                  {h.shown && <span className="dot" aria-label={t('step.shownToModel')} />}
                </span>
                {h.rerank != null && (
                  <span className="hit-rerank" data-testid="step-hit-rerank">
                    {t('step.rerankBadge', { score: formatNumber(h.rerank, 2) })}
                  </span>
                )}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

/** CropCard shows the source page with the crop box drawn on it beside the zoomed crop the model received. */
export function CropCard({ crop }: { crop: CropInfo }) {
  const { t } = useTranslation()
  const open = useOpenViewer()
  const openAt = () =>
    open({ documentId: Number(crop.document_id), unitId: Number(crop.unit_id), title: crop.document_name, regions: [crop.region] })
  return (
    <div className="card crop" data-testid="step-crop">
      <div className="card-title">
        <span aria-hidden="true">⤢</span> {t('step.zoomedInto', { doc: crop.document_name, page: crop.page })}
        {crop.true_zoom && <span className="badge">{t('step.trueZoom')}</span>}
        {crop.of_crop && <span className="badge">{t('step.cropOfCrop')}</span>}
      </div>
      <div className="crop-pair">
        <button className="crop-source" onClick={openAt} aria-label={t('step.openAtRegion', { page: crop.page })}>
          <span className="page-with-box" style={{ aspectRatio: `${crop.page_w || 1} / ${crop.page_h || 1.414}` }}>
            <Thumb unitId={Number(crop.unit_id)} width={384} alt={t('step.hitAlt', { doc: crop.document_name, page: crop.page })} />
            <Overlay regions={[crop.region]} label={t('step.cropBox')} />
          </span>
        </button>
        <span className="crop-arrow" aria-hidden="true">
          →
        </span>
        <button className="crop-zoom" onClick={openAt} aria-label={t('step.zoomedCrop')}>
          <Thumb blob={crop.image.image.blob} alt={t('step.cropAlt', { doc: crop.document_name, page: crop.page })} />
        </button>
      </div>
      <p className="muted small">
        {t('step.boxLine', {
          sent: crop.bbox_sent.map((n) => Math.round(n)).join(', '),
          fw: crop.frame_w,
          fh: crop.frame_h,
          raw: crop.bbox_raw.map((n) => Math.round(n)).join(', '),
          pw: crop.page_w,
          ph: crop.page_h,
        })}
      </p>
    </div>
  )
}

/** CalculationCard shows a calculator call: the expression and its result (or the error the model was told), and
 * each operand as the model read it, with a button to its page when the page is known. */
export function CalculationCard({ calc }: { calc: CalculationInfo }) {
  const { t } = useTranslation()
  const open = useOpenViewer()
  const failed = !!calc.error
  return (
    <div className={'card calculation' + (failed ? ' failed' : '')} data-testid="step-calculation" data-calc-id={calc.id}>
      <div className="card-title">
        <span aria-hidden="true">=</span> {failed ? t('step.calcFailed') : t('step.calculated')} <code>{calc.id}</code>
        {calc.node_id && <span className="badge">{calc.node_id}</span>}
      </div>
      <p className="calc-expr">
        {calc.expression}
        {!failed && (
          <>
            {' = '}
            <strong data-testid="calc-result">{calc.text}</strong>
          </>
        )}
      </p>
      {failed && (
        <p role="status" data-testid="calc-error">
          {t('step.calcError', { kind: calc.error_kind ?? '', message: calc.error })}
        </p>
      )}
      {(calc.operands ?? []).length > 0 && (
        <ul className="calc-operands">
          {(calc.operands ?? []).map((op) => {
            const src = op.source
            const where = src?.page ? t('step.calcSource', { doc: src.document_name || t('step.calcPage'), page: src.page }) : ''
            return (
              <li key={op.name} data-testid="calc-operand">
                <code>{op.name}</code> = {op.value}
                {src?.cell ? ` · ${src.cell}` : ''}
                {where &&
                  (src?.unit_id ? (
                    <>
                      {' · '}
                      <button
                        className="link"
                        onClick={() =>
                          open({
                            documentId: Number(src.document_id),
                            unitId: Number(src.unit_id),
                            title: src.document_name ?? '',
                            regions: src.region ? [src.region] : [],
                          })
                        }
                      >
                        {where}
                      </button>
                    </>
                  ) : (
                    ` · ${where}`
                  ))}
              </li>
            )
          })}
        </ul>
      )}
    </div>
  )
}

export function CitationChips({ citations }: { citations: Citation[] }) {
  const { t } = useTranslation()
  const open = useOpenViewer()
  if (citations.length === 0) return null
  return (
    <div className="citations" aria-label={t('step.citations')}>
      {citations.map((c, i) => (
        <button
          key={i}
          className="chip"
          data-testid="citation"
          onClick={() =>
            open({
              documentId: Number(c.document_id),
              unitId: Number(c.unit_id),
              title: c.document_name,
              regions: c.region ? [c.region] : [],
            })
          }
        >
          {t('step.citation', { doc: c.document_name, page: c.page })}
          {c.region ? ' ⤢' : ''}
        </button>
      ))}
    </div>
  )
}
