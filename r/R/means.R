# Means of clipped data: the release (Python's MeanReleaser) and the test shaped like t.test
# (Python's mean_test).

#' Privatize a mean: release a group's clipped sum
#'
#' Clips every value of \code{x} to the public bounds \code{[lower, upper]}
#' and releases the clipped sum with exact discrete Laplace noise of scale
#' \code{(upper - lower) / epsilon} (Python's \code{MeanReleaser}); with
#' \code{spread = TRUE} also the centred sum of squares (for a standard
#' deviation that is not known), \code{epsilon} shared by \code{split}.
#' \code{\link{dp_t_test}} tests the release.
#'
#' Only the release leaves the function: its noisy value(s), the public
#' \code{n} and bounds, and the privacy record; never \code{x}.  Choose the
#' bounds before seeing the data (a change score needs bounds for the change,
#' not for the measurement).  As in \code{\link{dp_release_count}}: no
#' \code{seed} is the hardened path; a \code{seed} is for research only; a
#' \code{budget} is charged before any noise is drawn, and \code{group =
#' c(set, name)} charges group \code{name} of the budget's parallel set
#' \code{set} (disjoint people, e.g. the two arms of a trial: parallel
#' composition, the set costs the larger epsilon).
#'
#' @param x The group's values (confidential): a numeric vector of finite
#'   numbers; its length \code{n} is public.
#' @param lower,upper The public clipping bounds, \code{lower < upper}.
#' @param epsilon The privacy parameter of the whole release (both statistics
#'   with \code{spread = TRUE}).
#' @param spread \code{TRUE} to release the centred sum of squares too.
#' @param split With \code{spread = TRUE}: the share of \code{epsilon} spent on
#'   the sum (the rest on the squares).
#' @param seed,budget,group As in \code{\link{dp_release_count}}.
#' @return An object of class \code{"dp_release"} of kind
#'   \code{"clipped_sum"}: \code{value} (the noisy clipped sum, or the pair
#'   (sum, centred sum of squares)), \code{bounds}, \code{split}, \code{n},
#'   \code{epsilon}, \code{disjoint} and the other fields of
#'   \code{\link{dp_release_count}}'s release.
#' @examples
#' if (dp_available()) {
#'   set.seed(5)
#'   treated <- dp_release_mean(rnorm(150, 125, 15), lower = 80, upper = 180, epsilon = 1,
#'                              spread = TRUE, seed = 6)   # research only: seeded
#'   print(treated)
#' }
#' @export
dp_release_mean <- function(x, lower, upper, epsilon, spread = FALSE, split = 0.5, seed = NULL, budget = NULL,
                            group = NULL) {
  if (!is.numeric(x) || !is.null(dim(x)) || !length(x)) {
    stop("`x` must be a numeric vector of the group's values (confidential: not shown).", call. = FALSE)
  }
  if (!is.logical(spread) || length(spread) != 1L || is.na(spread)) {
    stop("`spread` must be TRUE or FALSE.", call. = FALSE)
  }
  releaser <- .call("MeanReleaser", list(epsilon, lower, upper), list(spread = spread, split = split))
  # a list of doubles, not an R vector: reticulate 1.28 cannot build a NumPy 2 array.  NA and NaN
  # arrive as NaN, which Python refuses naming the position only.
  rel <- .call(releaser$release, list(as.list(as.numeric(x))),
               list(rng = .seed(seed), budget = .py_budget(budget, group)))
  .new_release(rel)
}

#' Private t test of one mean or two, like t.test
#'
#' The test and confidence interval of a mean from a clipped-sum release of
#' \code{\link{dp_release_mean}} (\code{x} alone: H0 \code{mean = mu}), or of
#' the difference of two groups' means (\code{x} and \code{y}: H0
#' \code{mean_x - mean_y = margin}), as \code{\link[stats]{t.test}}.  It calls
#' Python's \code{mean_test}: the numbers are Python's for the same releases.
#'
#' @param x A release from \code{\link{dp_release_mean}}, or a list of two
#'   (the two groups, with \code{y} left out).
#' @param y \code{NULL}, or the second group's release.
#' @param alternative \code{"two.sided"} (the default), \code{"less"} or
#'   \code{"greater"}.
#' @param mu One group: the null mean (\code{NULL}: 0), as \code{t.test}'s
#'   \code{mu}; Python's \code{mu0}.
#' @param margin Two groups: the null difference \code{mean_x - mean_y}
#'   (\code{NULL}: 0); \code{t.test(x, y, mu = )}'s \code{mu}, named as every
#'   two-group function of dpinfer names it.
#' @param conf.level The level of the interval.
#' @param method \code{"jimi"} (the default: DP-JIMI with the clipping
#'   modelled), \code{"repro"} (repro samples, valid in finite samples with the
#'   Monte Carlo error included; two groups need \code{sigma}) or
#'   \code{"naive"} (the normal interval around the clipped mean, which ignores
#'   the clipping: a comparator).
#' @param sigma \code{NULL} (the spread from the released sums of squares) or
#'   the known standard deviation (one number, or one per group).
#' @param model DP-JIMI's and repro's data model before clipping,
#'   \code{"normal"} or \code{"lognormal"} (not for \code{"naive"}).
#' @param n.sim DP-JIMI's draws (\code{NULL}: 2000) or the repro seeds.
#' @param seed The seed of the draws (\code{NULL}: derived from the releases).
#' @param workers \code{NULL} (one serial stream) or the number of local Python processes
#'   (\code{-1}: every CPU) for the draws: the same answer for every number.
#' @param composition Two groups: \code{NULL} (read the releases: parallel, the
#'   larger epsilon, only when they were charged to two groups of one budget's
#'   parallel set, see \code{group} in \code{\link{dp_release_mean}}),
#'   \code{"sequential"} or \code{"parallel"}.
#' @return An object of class \code{c("dp_htest", "htest")} (see
#'   \code{\link{dp_privacy}}).
#' @examples
#' if (dp_available()) {
#'   set.seed(5)
#'   b <- dp_budget(epsilon = 1)
#'   treated <- dp_release_mean(rnorm(150, 125, 15), 80, 180, epsilon = 1, spread = TRUE, seed = 6,
#'                              budget = b, group = c("arms", "treated"))   # research only: seeded
#'   control <- dp_release_mean(rnorm(150, 135, 15), 80, 180, epsilon = 1, spread = TRUE, seed = 7,
#'                              budget = b, group = c("arms", "control"))
#'   dp_t_test(treated, control)
#'   dp_t_test(treated, mu = 120, method = "naive")$p.value
#' }
#' @export
dp_t_test <- function(x, y = NULL, alternative = c("two.sided", "less", "greater"), mu = NULL, margin = NULL,
                      conf.level = 0.95, method = c("jimi", "repro", "naive"), sigma = NULL,
                      model = c("normal", "lognormal"), n.sim = NULL, seed = NULL, composition = NULL,
                      workers = NULL) {
  if (is.list(x) && !.is_release(x)) {
    if (!is.null(y) || length(x) != 2L) {
      stop("`x` given as a list must hold the two groups' releases, with `y` left out.", call. = FALSE)
    }
    y <- x[[2L]]
    x <- x[[1L]]
  }
  for (name in c("x", "y")) {
    r <- get(name)
    if (!is.null(r) && !(.is_release(r) && identical(r$kind, "clipped_sum"))) {
      stop(sprintf("`%s` must be a clipped-sum release from dp_release_mean()%s.", name,
                   if (name == "y") " or NULL" else ""), call. = FALSE)
    }
  }
  if (!is.null(sigma)) sigma <- if (length(sigma) == 1L) as.numeric(sigma) else as.list(as.numeric(sigma))
  kwargs <- list(mu0 = mu, margin = margin, method = match.arg(method), sigma = sigma, model = match.arg(model),
                 alternative = .alternative(alternative), confidence_level = .level(conf.level),
                 n_sim = if (is.null(n.sim)) NULL else .whole(n.sim, "n.sim"), rng = .seed(seed),
                 workers = .workers(workers),
                 composition = .composition(composition))
  releases <- list(attr(x, "py"))
  if (!is.null(y)) releases <- c(releases, list(attr(y, "py")))
  .test("mean_test", releases, kwargs)
}

#' Power and sample size of the private test of means, like power.t.test
#'
#' The power of the private test of one mean (\code{mu2} left out) or of two
#' means at \code{n}, or the smallest \code{n} reaching \code{power}: exactly
#' one of \code{n} and \code{power} is \code{NULL}, as in
#' \code{\link[stats]{power.t.test}}.  The data are planned as normal with
#' standard deviation \code{sd}, clipped to the release's bounds
#' \code{[lower, upper]} and released by \code{\link{dp_release_mean}} at
#' \code{epsilon} (Python's \code{mean_power} and \code{mean_sample_size}).
#' Because clipping moves the mean, the means themselves are given
#' (\code{mu1}, and \code{mu2} or the null \code{mu}), not only their
#' difference.
#'
#' Besides the private power (or n) the result holds the non-private
#' comparators: the same test without noise (clipping kept) and the textbook z
#' test (no noise, no clipping), and the price of privacy between them, printed
#' one line each.  With \code{sd} known the naive test's power is exact; with
#' \code{spread = TRUE} (the spread released and plugged in) or a method whose
#' power Python simulates, it is simulated from \code{n.sim} data sets and
#' \code{mc.se} is its Monte Carlo standard error.
#'
#' @param n Number of values (one group), or per group; \code{c(n1, n2)} for
#'   unequal groups.  \code{NULL} to solve for it.
#' @param mu1 The true mean the study is planned for (group 1).
#' @param mu2 The second group's true mean (two groups), or \code{NULL}.
#' @param sd The data's standard deviation (one number, or one per group).
#' @param lower,upper The clipping bounds the release will use.
#' @param epsilon Each group's release epsilon (one number or one per group).
#' @param sig.level Significance level.
#' @param power Target power, or \code{NULL} to compute it.
#' @param mu One group: the null mean (\code{NULL}: 0).
#' @param margin Two groups: the null difference \code{mu1 - mu2} (\code{NULL}: 0).
#' @param alternative \code{"two.sided"}, \code{"one.sided"} (the side of the
#'   planned effect, as in \code{power.t.test}), \code{"greater"} or \code{"less"}.
#' @param method The test planned (\code{NULL}: Python's default; see
#'   \code{\link{dp_t_test}} for the methods).
#' @param spread,split \code{spread = TRUE} plans for a release of the spread
#'   too (\code{dp_release_mean(spread = TRUE, split = split)}).
#' @param ratio Two groups, solving for n: \code{n2 / n1}.
#' @param n.sim Simulated data sets where the power is simulated (\code{NULL}:
#'   Python's default).
#' @param seed The simulation's seed (\code{NULL}: seeded from the question, so
#'   the same call gives the same answer).
#' @return An object of class \code{"power.htest"}: \code{n}, the means,
#'   \code{sd}, \code{lower}, \code{upper}, \code{sig.level}, \code{power},
#'   \code{mc.se} (simulated powers), \code{alternative}, \code{note},
#'   \code{method}, \code{epsilon}, and the comparators \code{nonprivate.power}
#'   (or \code{nonprivate.n}), \code{normal.power} (or \code{normal.n}) and
#'   \code{price.power} (or \code{price.n}, \code{price.total}).
#' @seealso \code{\link{dp_t_test}}, \code{\link{dp_power_prop_test}}
#' @examples
#' if (dp_available()) {
#'   dp_power_t_test(n = 100, mu1 = 128, mu = 120, sd = 15, lower = 80, upper = 180, epsilon = 1)
#'   dp_power_t_test(mu1 = 128, mu2 = 120, sd = 15, lower = 80, upper = 180, epsilon = 1, power = 0.8)$n
#' }
#' @export
dp_power_t_test <- function(n = NULL, mu1 = NULL, mu2 = NULL, sd = NULL, lower, upper, epsilon, sig.level = 0.05,
                            power = NULL, mu = NULL, margin = NULL,
                            alternative = c("two.sided", "one.sided", "greater", "less"), method = NULL,
                            spread = FALSE, split = 0.5, ratio = 1, n.sim = NULL, seed = NULL) {
  alternative <- match.arg(alternative)
  if (is.null(sig.level)) {
    stop("`sig.level` must be a significance level such as 0.05; NULL (solve for it, as in ",
         "power.t.test) is not offered.", call. = FALSE)
  }
  if (is.null(mu1) || is.null(sd)) {
    stop("`mu1` and `sd` must be given (with clipping the power depends on the means, not only on ",
         "their difference; solving for a mean or sd is not offered).", call. = FALSE)
  }
  if (is.null(n) == is.null(power)) stop("exactly one of `n` and `power` must be NULL.", call. = FALSE)
  two <- !is.null(mu2)
  if (two && !is.null(mu)) stop("`mu` is the null mean of one group; with `mu2` give `margin`.", call. = FALSE)
  if (!two && !is.null(margin)) stop("`margin` is the null difference of two groups; give `mu2` too, or `mu`.",
                                      call. = FALSE)
  effect <- if (two) mu1 - mu2 - (if (is.null(margin)) 0 else margin) else mu1 - (if (is.null(mu)) 0 else mu)
  alt <- switch(alternative, two.sided = "two-sided", one.sided = if (effect >= 0) "greater" else "less",
                alternative)
  pair <- function(x) if (length(x) == 2L) as.list(as.numeric(x)) else x
  common <- list(mu2 = mu2, mu0 = mu, margin = margin, sigma = pair(sd), lower = lower, upper = upper,
                 epsilon = pair(epsilon), alpha = sig.level, alternative = alt, method = method,
                 spread = spread, split = split, n_sim = if (is.null(n.sim)) NULL else .whole(n.sim, "n.sim"),
                 rng = .seed(seed))
  common <- common[!vapply(common, is.null, logical(1))]
  if (is.null(power)) {
    size <- if (length(n) == 2L) list(.whole(n[[1L]], "n[1]"), .whole(n[[2L]], "n[2]")) else .whole(n, "n")
    plan <- .call("mean_power", list(mu1, size), common, convert = "_planning")
    power <- plan$power
  } else {
    plan <- .call("mean_sample_size", list(mu1), c(common, list(power = power, ratio = ratio)),
                  convert = "_planning")
  }
  n <- if (!two || identical(plan$n1, plan$n2)) plan$n1 else c(plan$n1, plan$n2)
  means <- if (two) list(mu1 = mu1, mu2 = mu2, margin = if (is.null(margin)) 0 else margin) else
    list(mu1 = mu1, mu = if (is.null(mu)) 0 else mu)
  comparators <- if (!is.null(plan$nonprivate_power)) {
    list(nonprivate.power = plan$nonprivate_power, normal.power = plan$normal_power, price.power = plan$price_power)
  } else if (two) {
    twice <- function(a, b) if (identical(a, b)) a else c(a, b)
    list(nonprivate.n = twice(plan$nonprivate_n1, plan$nonprivate_n2), normal.n = twice(plan$normal_n1, plan$normal_n2),
         price.n = twice(plan$price_n1, plan$price_n2), price.total = plan$price_total)
  } else {
    list(nonprivate.n = plan$nonprivate_n, normal.n = plan$normal_n, price.n = plan$price_n)
  }
  comparators <- comparators[!vapply(comparators, is.null, logical(1))]
  note <- paste0(plan$note,
                 "; nonprivate: the same test without the privacy noise (clipping kept); normal: the z test ",
                 "without noise or clipping; price = nonprivate - private")
  out <- c(list(n = n), means, list(sd = sd, lower = lower, upper = upper, sig.level = sig.level, power = power,
                                    mc.se = plan$mc_se,
                                    alternative = if (alternative == "two.sided") "two.sided" else alt,
                                    note = note, method = plan$method, epsilon = epsilon), comparators)
  structure(out[!vapply(out, is.null, logical(1))], class = "power.htest")
}
