#' Private stratified test of a common risk difference, like mantelhaen.test
#'
#' The exact stratified comparison of two arms released separately in each of
#' several strata (centres): the private counterpart of
#' \code{\link[stats]{mantelhaen.test}} for a 2 x 2 x S table, on the risk
#' difference scale.  Each stratum's two arms are Tulap count releases of equal
#' size (from \code{\link{dp_release_count}}), each with its own epsilon.  The
#' p-value is the supremum over every stratum's baseline rate (in closed form),
#' restricted to a \code{1 - gamma} confidence box plus \code{gamma} (Berger and
#' Boos 1994): its size is at most alpha exactly.  Calls Python's
#' \code{dpinfer.binom_strata_test}.
#'
#' @param x A list of strata, each a list of two releases (arm 1, arm 2);
#'   names of \code{x}, when given, name the strata in \code{data.name}.
#' @param alternative \code{"two.sided"} (the default), \code{"less"} or
#'   \code{"greater"} (a common difference above \code{margin}).
#' @param conf.level The level of the interval for the common difference.
#' @param margin The null common risk difference (0: no effect).
#' @param gamma The Berger-Boos allowance (0 takes the supremum over the whole null).
#' @param composition \code{NULL} (read the releases: parallel only when every release records
#'   its own group of one budget's parallel set), \code{"sequential"} or \code{"parallel"}.
#' @return An object of class \code{c("dp_htest", "htest")}: \code{statistic}
#'   the sum of the released differences, \code{parameter} the number of strata,
#'   \code{estimate} the Mantel-Haenszel risk difference, \code{conf.int}; the
#'   note lists every release's epsilon.
#' @examples
#' if (dp_available()) {
#'   strata <- list(
#'     Leeds = list(dp_release_count(24, 40, epsilon = 1, seed = 1),
#'                  dp_release_count(15, 40, epsilon = 1, seed = 2)),
#'     Lyon = list(dp_release_count(33, 60, epsilon = 2, seed = 3),
#'                 dp_release_count(22, 60, epsilon = 2, seed = 4)))
#'   dp_mantelhaen_test(strata)
#' }
#' @export
dp_mantelhaen_test <- function(x, alternative = c("two.sided", "less", "greater"), conf.level = 0.95,
                               margin = 0, gamma = 0.001, composition = NULL) {
  ok <- is.list(x) && length(x) >= 1L && !.is_release(x) &&
    all(vapply(x, function(s) is.list(s) && !.is_release(s) && length(s) == 2L &&
                 all(vapply(s, .is_release, logical(1))), logical(1)))
  if (!ok) {
    stop("`x` must be a list of strata, each a list of two releases from dp_release_count() (arm 1, arm 2).",
         call. = FALSE)
  }
  pairs <- unname(lapply(x, function(s) lapply(s, attr, "py")))
  kwargs <- list(alternative = .alternative(alternative), confidence_level = .level(conf.level),
                 gamma = as.numeric(gamma), composition = .composition(composition))
  res <- .test("binom_strata_test", list(pairs, as.numeric(margin)), kwargs)
  if (!is.null(names(x)) && all(nzchar(names(x)))) {
    res$data.name <- paste0(res$data.name, " (strata: ", paste(names(x), collapse = ", "), ")")
  }
  res
}
