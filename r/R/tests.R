# The tests, shaped like binom.test, prop.test, chisq.test and power.prop.test.

.is_release <- function(x) inherits(x, "dp_release")

.check_epsilon_given <- function(epsilon) {
  if (is.null(epsilon)) {
    stop("`epsilon` must be given with a released value typed in (a dp_release carries its own).",
         call. = FALSE)
  }
}

#' Exact test of a proportion from a private count, like binom.test
#'
#' The DP-UMP test of Awan and Slavkovic (exact for the released law, two-sided
#' by default as in \code{\link[stats]{binom.test}}) and its confidence
#' interval, from a Tulap release of the count.
#'
#' @param z A release from \code{\link{dp_release_count}} (Tulap), or the
#'   released (noisy) count typed in; then \code{n} and \code{epsilon} are needed.
#' @param n The public number of trials (only with a typed-in \code{z}).
#' @param p The null proportion.
#' @param alternative \code{"two.sided"} (the default), \code{"less"} or
#'   \code{"greater"}; \code{"greater"} tests H0: theta <= p.  Python's
#'   spelling \code{"two-sided"} is also accepted.
#' @param conf.level The level of the interval in \code{conf.int}.
#' @param epsilon,delta The release's privacy parameters (only with a typed-in \code{z}).
#' @param two.sided.method \code{NULL} (the asymptotically unbiased p-value of
#'   Awan and Slavkovic 2020) or \code{"equal-tailed"}.
#' @param ... Further arguments of Python's \code{binom_ump_test} (e.g.
#'   \code{sensitivity}), passed as they are.
#' @return An object of class \code{c("dp_htest", "htest")} with \code{statistic}
#'   (the release \code{Z}), \code{parameter} (\code{n}), \code{p.value},
#'   \code{conf.int}, \code{estimate}, \code{null.value}, \code{alternative},
#'   \code{method}, \code{data.name} and the attribute \code{"privacy"} (see
#'   \code{\link{dp_privacy}}).
#' @references Awan, J. and Slavkovic, A. (2018). Differentially private uniformly
#'   most powerful tests for binomial data. NeurIPS.
#' @examples
#' if (dp_available()) {
#'   # a published release typed in: binomialDP's pvalLeft(12.7, 30, 0.2, exp(-1), 0)
#'   print(dp_binom_test(12.7, 30, p = 0.2, alternative = "greater", epsilon = 1))
#'   rel <- dp_release_count(11, 30, epsilon = 1, seed = 1)   # research only: seeded
#'   res <- dp_binom_test(rel, p = 0.2)
#'   print(res$p.value)
#'   print(res$conf.int)
#' }
#' @export
dp_binom_test <- function(z, n = NULL, p = 0.5, alternative = c("two.sided", "less", "greater"),
                          conf.level = 0.95, epsilon = NULL, delta = NULL, two.sided.method = NULL, ...) {
  kwargs <- list(alternative = .alternative(alternative), confidence_level = .level(conf.level),
                 two_sided_method = two.sided.method, ...)
  if (.is_release(z)) {
    if (!is.null(n) || !is.null(epsilon) || !is.null(delta)) {
      stop("`n`, `epsilon` and `delta` come from the release `z`; do not give them again.", call. = FALSE)
    }
    return(.test("binom_ump_test", list(attr(z, "py"), p), kwargs))
  }
  if (!is.numeric(z) || length(z) != 1L) {
    stop("`z` must be one released value or a release from dp_release_count(); for several, ",
         "use lapply(z, dp_binom_test, ...).", call. = FALSE)
  }
  .check_epsilon_given(epsilon)
  if (is.null(n)) stop("`n` must be given with a released value typed in.", call. = FALSE)
  kwargs$epsilon <- epsilon
  kwargs$delta <- delta
  .test("binom_ump_test", list(as.numeric(z), .whole(n, "n"), p), kwargs)
}

#' Test one or two private proportions, like prop.test
#'
#' One arm: the test of \code{p} that fits the release (DP-UMP for a Tulap
#' release, DP-JIMI or the normal approximation for a Laplace one:
#' \code{method}).  Two arms (\code{x = c(z1, z2)}, \code{n = c(n1, n2)}, or
#' \code{x = list(release1, release2)}): the exact unconditional test of the
#' difference in proportions (or their ratio, \code{effect = "ratio"}), with a
#' non-inferiority \code{margin} when \code{alternative} is one-sided, as R's
#' \code{prop.test(c(x1, x2), c(n1, n2))}.
#'
#' @param x A release, a list of two releases, or one or two released values
#'   typed in (released counts for every method; with \code{n} and
#'   \code{epsilon}: Tulap counts for \code{"ump"}, Laplace counts for
#'   \code{"normal"} and \code{"jimi"}, divided by \code{n} here).
#' @param n The public sizes, with typed-in values.
#' @param p The null proportion (one arm; default 0.5).
#' @param alternative,conf.level As in \code{\link{dp_binom_test}}.
#' @param epsilon,delta Privacy parameters of typed-in values: one for both
#'   arms or a pair.
#' @param method \code{NULL} (the method that fits the release), \code{"ump"},
#'   \code{"normal"} or \code{"jimi"}.
#' @param margin,effect Two arms: the null difference (or ratio, or odds
#'   ratio) and the effect (\code{"difference"}, \code{"ratio"} or
#'   \code{"odds-ratio"}, the last for Tulap arms).
#' @param n.sim,seed DP-JIMI with draws: their number and the seed.
#' @param workers \code{NULL} (one serial stream) or the number of local Python processes
#'   (\code{-1}: every CPU) for the draws: the same answer for every number.
#' @param statistic Two Tulap arms: the exact test's ordering, \code{NULL}
#'   (Python's default: the score; the difference for Laplace arms), \code{"difference"} or \code{"score"}
#'   (Python's \code{statistic}; see \code{binom2_ump_test}).
#' @param two.sided.method One Tulap arm, two-sided: as in \code{\link{dp_binom_test}}.
#' @param composition Two arms: \code{NULL} (read the releases: \code{"parallel"},
#'   the larger epsilon, only when they were charged to two groups of one
#'   budget's parallel set, see \code{group} in \code{\link{dp_release_count}};
#'   else \code{"sequential"}, the sum), \code{"sequential"}, or
#'   \code{"parallel"} (disjoint arms, for typed-in values).  The rule of every
#'   dpinfer method.
#' @return An object of class \code{c("dp_htest", "htest")} (see \code{\link{dp_privacy}}).
#' @examples
#' if (dp_available()) {
#'   # two arms, released values typed in (as prop.test(c(x1, x2), c(n1, n2)))
#'   print(dp_prop_test(c(40.9092, 26.55515), c(60, 60), epsilon = 1))
#'   # two releases (research only: seeded)
#'   a1 <- dp_release_count(41, 60, epsilon = 1, seed = 1)
#'   a2 <- dp_release_count(27, 60, epsilon = 1, seed = 2)
#'   print(dp_prop_test(list(a1, a2), margin = -0.1, alternative = "greater")$p.value)
#'   # one Laplace release, the DP-JIMI test
#'   lap <- dp_release_count(11, 30, epsilon = 1, mechanism = "laplace", seed = 4)
#'   dp_prop_test(lap, p = 0.2, method = "jimi")$p.value
#' }
#' @export
dp_prop_test <- function(x, n = NULL, p = NULL, alternative = c("two.sided", "less", "greater"),
                         conf.level = 0.95, epsilon = NULL, delta = NULL, method = NULL,
                         margin = NULL, effect = NULL, n.sim = NULL, seed = NULL, composition = NULL,
                         statistic = NULL, two.sided.method = NULL, workers = NULL) {
  # NULL settings are left out of the call, so Python's own defaults apply (e.g. its default ordering)
  kwargs <- list(alternative = .alternative(alternative), confidence_level = .level(conf.level),
                 method = method, margin = margin, effect = effect, composition = composition,
                 statistic = statistic, two_sided_method = two.sided.method,
                 n_sim = if (is.null(n.sim)) NULL else .whole(n.sim, "n.sim"), rng = .seed(seed),
                 workers = .workers(workers))
  if (.is_release(x)) x <- list(x)
  if (is.list(x)) {
    if (!length(x) %in% 1:2 || !all(vapply(x, .is_release, logical(1)))) {
      stop("`x` must be one or two releases from dp_release_count(), or released values typed in.",
           call. = FALSE)
    }
    if (!is.null(n) || !is.null(epsilon) || !is.null(delta)) {
      stop("`n`, `epsilon` and `delta` come from the releases in `x`; do not give them again.", call. = FALSE)
    }
    releases <- lapply(x, attr, "py")
    if (length(releases) == 1L) {
      return(.test("prop_test", list(releases[[1L]], p), kwargs))
    }
    if (!is.null(p)) stop("`p` is for one arm; two arms take `margin`.", call. = FALSE)
    return(.test("prop_test", list(releases[[1L]], releases[[2L]]), kwargs))
  }
  if (!is.numeric(x) || !length(x) %in% 1:2) {
    stop("`x` must be one or two released values (or releases from dp_release_count()).", call. = FALSE)
  }
  .check_epsilon_given(epsilon)
  if (is.null(n) || length(n) != length(x)) {
    stop("`n` must give one size per released value in `x`.", call. = FALSE)
  }
  sizes <- lapply(seq_along(n), function(i) .whole(n[[i]], "n"))
  if (length(x) == 1L) {
    # one typed-in value: the function of the method (a Tulap count for "ump", the default;
    # a Laplace proportion for "normal" and "jimi")
    what <- switch(if (is.null(method)) "ump" else method,
                   ump = "binom_ump_test", normal = "binom_normal_test", jimi = "binom_jimi_test",
                   stop(sprintf("`method` must be \"ump\", \"normal\" or \"jimi\" for one value; got \"%s\".",
                                method), call. = FALSE))
    one <- list(alternative = kwargs$alternative, confidence_level = kwargs$confidence_level,
                epsilon = epsilon, delta = delta)
    if (what == "binom_jimi_test") {
      one <- c(one, list(n_sim = kwargs$n_sim, rng = kwargs$rng, workers = kwargs$workers))
    } else if (!is.null(workers)) {  # refused, never silently dropped, as Python's prop_test refuses it
      stop(sprintf("`workers` applies to method = \"jimi\" only (\"%s\" draws nothing); got workers = %s.",
                   if (is.null(method)) "ump" else method, format(workers)), call. = FALSE)
    }
    if (what == "binom_ump_test") one$two_sided_method <- two.sided.method
    if (!is.null(margin) || !is.null(effect) || !is.null(statistic)) {
      stop("`margin`, `effect` and `statistic` are for two arms.", call. = FALSE)
    }
    return(.test(what, list(.typed_units(x, sizes, method), sizes[[1L]], if (is.null(p)) 0.5 else p), one))
  }
  if (!is.null(p)) stop("`p` is for one arm; two arms take `margin`.", call. = FALSE)
  kwargs$epsilon <- if (length(epsilon) == 2L) as.list(epsilon) else epsilon
  kwargs$delta <- if (length(delta) == 2L) as.list(delta) else delta
  .test("prop_test", list(as.list(.typed_units(x, sizes, method)), sizes), kwargs)
}

# Typed-in values of dp_prop_test are released counts for every method (one unit for `x`); the
# Laplace methods ("normal", "jimi") take a proportion, so the count is divided by its n: a
# Laplace count of scale 1/epsilon over n is exactly the Laplace proportion of scale 1/(epsilon n).
.typed_units <- function(x, sizes, method) {
  x <- as.numeric(x)
  if (!is.null(method) && method %in% c("normal", "jimi")) x <- x / as.numeric(unlist(sizes))
  x
}

#' Private test of independence in a table, like chisq.test
#'
#' The DP-JIMI fiducial test of independence (or Gaboardi et al.'s Monte Carlo
#' test, \code{method = "mc"}) on an r x c table released with Laplace noise on
#' every cell.  As \code{chisq.test(m)} for an r x c table, or
#' \code{prop.test(m)} for a k x 2 table of successes and failures.
#'
#' @param x A table release from \code{\link{dp_release_table}}, or a matrix of
#'   confidential counts, released here with \code{epsilon} (charging
#'   \code{budget}) and then tested.
#' @param epsilon,budget With a matrix: the release's epsilon, and a budget to charge.
#' @param method \code{"jimi"} (the default) or \code{"mc"}.
#' @param n.sim The number of Monte Carlo draws (R's \code{B}).
#' @param seed The seed of the draws (and, with a matrix, of the release:
#'   research only).  \code{NULL} derives the draws from the public release.
#' @param workers \code{NULL} (one serial stream) or the number of local Python processes
#'   (\code{-1}: every CPU) for the draws: the same answer for every number.
#' @return An object of class \code{c("dp_htest", "htest")}; no \code{parameter}:
#'   the p-value is simulated from the law of the noisy statistic.
#' @examples
#' if (dp_available()) {
#'   tab <- dp_release_table(matrix(c(40, 15, 10, 35), 2), epsilon = 1, seed = 3)
#'   dp_chisq_test(tab, n.sim = 2000, seed = 1)
#' }
#' @export
dp_chisq_test <- function(x, epsilon = NULL, method = c("jimi", "mc"), n.sim = 10000, seed = NULL,
                          budget = NULL, workers = NULL) {
  method <- match.arg(method)
  if (is.matrix(x)) {
    if (is.null(epsilon)) stop("`epsilon` must be given to release the matrix `x`.", call. = FALSE)
    x <- dp_release_table(x, epsilon = epsilon, seed = seed, budget = budget)
  } else if (!is.null(epsilon) || !is.null(budget)) {
    stop("`epsilon` and `budget` are for a matrix `x`; a release carries its own.", call. = FALSE)
  }
  if (!.is_release(x) || x$kind != "table") {
    stop("`x` must be a table release from dp_release_table() or a matrix of counts.", call. = FALSE)
  }
  .test("prop_test", list(attr(x, "py")), list(method = method, n_sim = .whole(n.sim, "n.sim"), rng = .seed(seed),
                                               workers = .workers(workers)))
}

#' Exact power and sample size of the private two-arm test, like power.prop.test
#'
#' Exactly one of \code{n} and \code{power} is \code{NULL}, and that one is
#' computed: the exact power of the exact two-arm test of
#' \code{\link{dp_prop_test}} on two Tulap releases (Laplace with
#' \code{mechanism = "laplace"}) at privacy \code{epsilon}
#' (each arm released once, at \code{epsilon}), or the smallest \code{n} per
#' group that reaches \code{power}.
#'
#' @param n The number per group (\code{NULL} to compute it).
#' @param p1,p2 The true proportions of the two groups.
#' @param sig.level The significance level (\code{NULL}, solving for it, is refused).
#' @param power The power to reach (\code{NULL} to compute it).
#' @param alternative \code{"two.sided"} (the default), \code{"one.sided"} (in
#'   the direction of \code{p1 - p2}, as R's), \code{"greater"} or \code{"less"}.
#' @param epsilon,delta The privacy parameters of each arm's release.
#' @param ratio \code{n2 / n1} when computing \code{n} (1: equal groups).
#' @param margin The null difference (non-inferiority with a one-sided alternative),
#'   or ratio with \code{effect = "ratio"}.
#' @param effect,statistic As in \code{\link{dp_prop_test}}: \code{NULL}
#'   (Python's defaults: the difference, ordered by the score; Laplace arms by the difference),
#'   \code{"ratio"} or \code{"odds-ratio"}; \code{"difference"} or \code{"score"}.
#' @param mechanism \code{NULL} (Tulap counts, as \code{\link{dp_release_count}}'s
#'   default) or \code{"laplace"}: how both arms will be released.
#' @return An object of class \code{"power.htest"}, as \code{power.prop.test}
#'   returns, with \code{epsilon} and \code{delta} beside, and the non-private
#'   comparators that put a number on the price of privacy (printed as lines,
#'   explained in the note): computing \code{n}, \code{nonprivate.n} (the same
#'   exact test without the privacy noise: epsilon = Inf, where the Tulap noise
#'   is its uniform part, a randomized exact test), \code{normal.n} (the
#'   normal approximation without noise: \code{power.prop.test}'s \code{n}; for
#'   \code{ratio} other than 1 the same formula with unequal groups; absent for a
#'   non-zero \code{margin}), \code{price.n} (\code{n - nonprivate.n} per group)
#'   and \code{price.total} (both groups); computing \code{power},
#'   \code{nonprivate.power}, \code{normal.power} (\code{power.prop.test}'s) and
#'   \code{price.power} (\code{nonprivate.power - power}).
#' @examples
#' if (dp_available()) {
#'   print(dp_power_prop_test(n = 60, p1 = 0.5, p2 = 0.3, epsilon = 1))
#'   dp_power_prop_test(p1 = 0.5, p2 = 0.3, power = 0.8, epsilon = 1)
#' }
#' @export
dp_power_prop_test <- function(n = NULL, p1 = NULL, p2 = NULL, sig.level = 0.05, power = NULL,
                               alternative = c("two.sided", "one.sided", "greater", "less"),
                               epsilon, delta = 0, ratio = 1, margin = NULL, effect = NULL, statistic = NULL,
                               mechanism = NULL) {
  alternative <- match.arg(alternative)
  if (is.null(sig.level)) {
    # in power.prop.test, NULL asks to solve for the level; that is not offered here
    stop("`sig.level` must be a significance level such as 0.05; NULL (solve for it, as in ",
         "power.prop.test) is not offered.", call. = FALSE)
  }
  if (is.null(p1) || is.null(p2)) {
    stop("`p1` and `p2` must both be given (solving for a proportion is not offered).", call. = FALSE)
  }
  if (is.null(n) == is.null(power)) stop("exactly one of `n` and `power` must be NULL.", call. = FALSE)
  alt <- switch(alternative, two.sided = "two-sided",
                one.sided = if (p1 >= p2) "greater" else "less", alternative)
  # NULL settings are left out of the call: Python's defaults apply (its default ordering included)
  common <- list(epsilon = epsilon, delta = delta, alpha = sig.level, alternative = alt, margin = margin,
                 effect = effect, statistic = statistic, mechanism = mechanism)
  if (is.null(power)) {
    size <- .whole(n, "n")
    plan <- .call("binom2_ump_power", list(p1, p2, size, size), common, convert = "_planning")
    power <- plan$power
  } else {
    plan <- .call("binom2_ump_sample_size", list(p1, p2), c(common, list(power = power, ratio = ratio)),
                  convert = "_planning")
    n <- if (plan$n1 == plan$n2) plan$n1 else c(plan$n1, plan$n2)
  }
  note <- paste0("n is the number in *each* group", if (length(n) == 2L) " (n1, n2)" else "",
                 "; each arm released once by the ", if (identical(mechanism, "laplace")) "Laplace" else "Tulap",
                 " mechanism at epsilon = ", format(epsilon), ", delta = ", format(delta), "; ", .price_note(plan))
  structure(c(list(n = n, p1 = p1, p2 = p2, sig.level = sig.level, power = power,
                   alternative = if (alternative == "two.sided") "two.sided" else alternative,
                   note = note, method = "Exact power of the private two-sample test of proportions",
                   epsilon = epsilon, delta = delta), .price_of_privacy(plan)),
            class = "power.htest")
}
