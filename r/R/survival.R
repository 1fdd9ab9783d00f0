# Time-to-event endpoints: a private life table, Kaplan-Meier curves and the log-rank test.

#' Privatize a life table of time-to-event data
#'
#' Counts, per arm and time interval, the events (in \eqn{(t_{j-1}, t_j]}) and the
#' censorings (in \eqn{[t_{j-1}, t_j)}) of \code{(time, event)} data and releases them with Tulap noise
#' (\code{epsilon / 2} per cell; Python's \code{LifeTableReleaser}).  The unit
#' of privacy is one patient (replace-one within an arm; the arm sizes are
#' public).  Times beyond the last break are censored there.  Choose the
#' breaks before seeing the data.
#'
#' @param time Follow-up times (confidential), finite and \code{>= 0}.
#' @param event Event indicators (1 event, 0 censored; or logical).
#' @param group The arm of each patient (\code{NULL}: one arm).
#' @param breaks The public interval ends, increasing and positive.
#' @param epsilon The privacy parameter of the whole table.
#' @param seed \code{NULL} (the hardened path) or a whole number (research only).
#' @param budget \code{NULL} or a budget from \code{\link{dp_budget}} to charge.
#' @return An object of class \code{"dp_release"} of kind \code{"life_table"}
#'   (\code{value} a list per arm of per-interval pairs (events, censorings);
#'   \code{breaks}, \code{groups}, \code{group_sizes}).
#' @examples
#' if (dp_available()) {
#'   set.seed(1)
#'   time <- c(rexp(60, 1 / 10), rexp(60, 1 / 6))
#'   arm <- rep(c("control", "treated"), each = 60)
#'   rel <- dp_release_survival(time, rep(1, 120), arm, breaks = c(3, 6, 9, 12),
#'                              epsilon = 1, seed = 2)   # research only: seeded
#'   print(rel)
#' }
#' @export
dp_release_survival <- function(time, event, group = NULL, breaks, epsilon, seed = NULL, budget = NULL) {
  if (!is.numeric(time) || !length(time)) stop("`time` must be a numeric vector of follow-up times.", call. = FALSE)
  if (is.logical(event)) event <- as.integer(event)
  if (!is.numeric(event) || length(event) != length(time)) {
    stop("`event` must be a numeric (0/1) or logical vector as long as `time`.", call. = FALSE)
  }
  if (!is.null(group) && length(group) != length(time)) {
    stop("`group` must be as long as `time` (one arm per patient).", call. = FALSE)
  }
  releaser <- .call("LifeTableReleaser", list(epsilon, as.list(as.numeric(breaks))))
  args <- list(as.list(as.numeric(time)), as.list(as.numeric(event)),
               if (is.null(group)) NULL else as.list(as.character(group)))
  rel <- .call(releaser$release, args, list(rng = .seed(seed), budget = .py_budget(budget)))
  .new_release(rel)
}

#' Private log-rank test of two arms, like survdiff
#'
#' The grouped-time log-rank test of equal survival from a life table released
#' by \code{\link{dp_release_survival}}, with its null law simulated at the
#' estimated common hazards (the p-value's Monte Carlo error is printed), and
#' the Mantel-Haenszel hazard ratio of the second arm to the first with an
#' interval that accounts for the noise.  Prints \code{survdiff}'s table, then
#' the htest block and the privacy lines.
#'
#' @param x A life-table release of two arms from \code{\link{dp_release_survival}}.
#' @param alternative \code{"two.sided"} (the default), \code{"greater"} (the
#'   second arm's hazard is higher) or \code{"less"}.
#' @param conf.level The level of the hazard ratio's interval.
#' @param n.sim The number of simulated releases.
#' @param seed The seed of the simulations; \code{NULL} derives them from the release.
#' @param workers \code{NULL} (one serial stream) or the number of local Python processes
#'   (\code{-1}: every CPU) for the draws: the same answer for every number.
#' @return An object of class \code{c("dp_survdiff", "dp_htest", "htest")}
#'   with \code{survdiff.table} (the printed table lines).
#' @examples
#' if (dp_available()) {
#'   set.seed(1)
#'   time <- c(rexp(100, 1 / 10), rexp(100, 1 / 5))
#'   arm <- rep(c("control", "treated"), each = 100)
#'   rel <- dp_release_survival(time, rep(1, 200), arm, breaks = c(3, 6, 9, 12), epsilon = 1, seed = 2)
#'   dp_survdiff(rel, n.sim = 2000)
#' }
#' @export
dp_survdiff <- function(x, alternative = c("two.sided", "less", "greater"), conf.level = 0.95, n.sim = 10000,
                        seed = NULL, workers = NULL) {
  .check_life_table(x)
  record <- .call("logrank_test", list(attr(x, "py")),
                  list(alternative = .alternative(alternative), confidence_level = .level(conf.level),
                       n_sim = .whole(n.sim, "n.sim"), rng = .seed(seed), workers = .workers(workers)),
                  convert = "logrank")
  out <- .as_htest(record)
  out$survdiff.table <- unlist(record[["survdiff.table"]])
  class(out) <- c("dp_survdiff", class(out))
  out
}

#' @export
print.dp_survdiff <- function(x, ...) {
  cat("\n", paste(x$survdiff.table, collapse = "\n"), "\n", sep = "")
  NextMethod()
}

#' Private Kaplan-Meier curves, like summary(survfit(...))
#'
#' Survival curves (actuarial or Kaplan-Meier) per arm at the breaks of a life table released by
#' \code{\link{dp_release_survival}}: the noisy counts are made consistent
#' (isotonic fits of the cumulative counts), and the pointwise intervals and
#' the median's interval come from a parametric bootstrap that simulates the
#' sampling and the noise.
#'
#' @param x A life-table release from \code{\link{dp_release_survival}}.
#' @param estimator \code{"actuarial"} (the default: the life-table estimate,
#'   censorings at risk for half their interval) or \code{"km"} (Kaplan-Meier on
#'   the grouped times, what \code{survfit} gives on them).
#' @param conf.int The level of the intervals.
#' @param conf.type \code{"percentile"} (the default) or \code{"bootstrap"}
#'   (bias-corrected, on the cumulative-hazard scale).
#' @param n.sim The number of simulated releases.
#' @param seed The seed of the simulations; \code{NULL} derives them from the release.
#' @return An object of class \code{"dp_survfit"}: a list with \code{time},
#'   \code{strata}, \code{n}, \code{n.risk}, \code{n.event}, \code{n.censor},
#'   \code{surv}, \code{std.err}, \code{lower}, \code{upper} (matrices, one row
#'   per arm), \code{median} (with \code{median.lower}, \code{median.upper}),
#'   \code{conf.int} and the privacy record; \code{print} shows the
#'   \code{summary(survfit(...))} layout with the privacy lines.
#' @examples
#' if (dp_available()) {
#'   set.seed(1)
#'   time <- rexp(150, 1 / 8)
#'   rel <- dp_release_survival(time, rep(1, 150), breaks = c(2, 4, 6, 8, 10), epsilon = 1, seed = 3)
#'   fit <- dp_survfit(rel, n.sim = 1000)
#'   fit
#'   fit$surv
#' }
#' @export
dp_survfit <- function(x, estimator = c("actuarial", "km"), conf.int = 0.95, conf.type = c("percentile", "bootstrap"),
                       n.sim = 2000, seed = NULL) {
  .check_life_table(x)
  estimator <- match.arg(estimator)
  conf.type <- match.arg(conf.type)
  r <- .call("kaplan_meier", list(attr(x, "py")),
             list(estimator = estimator, confidence_level = .level(conf.int), method = conf.type,
                  n_sim = .whole(n.sim, "n.sim"), rng = .seed(seed)), convert = "survfit")
  rows <- function(v) do.call(rbind, lapply(v, function(row) vapply(row, function(e) if (is.null(e)) NA_real_
                                                                    else as.numeric(e), 0)))
  vec <- function(v) vapply(v, function(e) if (is.null(e)) NA_real_ else as.numeric(e), 0)
  out <- list(time = unlist(r$time), strata = unlist(r$groups), n = unlist(r$n),
              n.risk = rows(r$n_risk), n.event = rows(r$n_event), n.censor = rows(r$n_censor),
              surv = rows(r$surv), std.err = rows(r$std_err), lower = rows(r$lower), upper = rows(r$upper),
              median = vec(r$median), median.lower = vec(r$median_lower), median.upper = vec(r$median_upper),
              conf.int = r$confidence_level, method = r$method, epsilon = r$epsilon, delta = r$delta,
              mechanism = r$mechanism, privacy.unit = r$privacy_unit, n.sim = r$n_sim, printed = r$printed)
  for (k in c("n.risk", "n.event", "n.censor", "surv", "std.err", "lower", "upper")) {
    rownames(out[[k]]) <- out$strata
  }
  structure(out, class = "dp_survfit")
}

#' @export
print.dp_survfit <- function(x, ...) {
  cat(x$printed, "\n", sep = "")
  invisible(x)
}

.check_life_table <- function(x) {
  if (!.is_release(x) || !identical(x$kind, "life_table")) {
    stop("`x` must be a life-table release from dp_release_survival().", call. = FALSE)
  }
}
