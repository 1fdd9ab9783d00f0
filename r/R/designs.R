#' An exact private two-arm group-sequential design, like rpact or gsDesign
#'
#' Plans a two-arm trial with \code{k} looks whose stages are released once each
#' (each arm's new patients, Tulap noise at \code{epsilon}): efficacy boundaries on
#' the released difference of cumulative proportions whose exact cumulative type-I
#' error, at the worst common response rate, is at most the Lan-DeMets spending
#' function's value, and the smallest maximum size whose exact power reaches
#' \code{power}.  The Python function \code{sequential_design} does the work; the
#' non-private design's numbers are printed beside.
#'
#' @param p1,p2 The planned proportions of arm 1 (experimental) and arm 2 (control);
#'   \code{p1 > p2} plans the one-sided test of \code{p1 <= p2} against \code{p1 > p2}.
#' @param k The number of looks (2 to 6).
#' @param alpha The one-sided significance level (0.025, as rpact and gsDesign).
#' @param power The power to reach at \code{p1, p2}.
#' @param epsilon,delta The privacy of every stage's release (and, by parallel
#'   composition, of the whole design).
#' @param spending \code{"obrien-fleming"} (rpact's \code{"asOF"}, gsDesign's
#'   \code{sfLDOF}) or \code{"pocock"} (\code{"asP"}, \code{sfLDPocock}).
#' @param futility \code{TRUE} for non-binding futility boundaries by beta spending
#'   (gsDesign's \code{test.type = 4}).
#' @param ratio The allocation \code{n2 / n1} (a ratio of whole numbers up to 4).
#' @param information The planned information fractions (increasing, the last 1);
#'   \code{NULL}: equally spaced.
#' @return An object of class \code{"dp_sequential_design"}: a list with the
#'   design's fields (\code{n1}, \code{n2}, \code{efficacy_difference},
#'   \code{spent}, \code{cumulative_alpha}, \code{exact_power}, \code{expected_n0},
#'   \code{expected_n1}, \code{nonprivate}, ...) and \code{printed}, its summary.
#' @examples
#' if (dp_available()) {
#'   dp_sequential_design(0.5, 0.3, k = 3, epsilon = 1)
#' }
#' @export
dp_sequential_design <- function(p1, p2, k = 3, alpha = 0.025, power = 0.8, epsilon, delta = 0,
                                 spending = c("obrien-fleming", "pocock"), futility = FALSE, ratio = 1,
                                 information = NULL) {
  spending <- match.arg(spending)
  if (!is.logical(futility) || length(futility) != 1L || is.na(futility)) {
    stop("`futility` must be TRUE or FALSE.", call. = FALSE)
  }
  kwargs <- list(looks = .whole(k, "k"), alpha = alpha, power = power, epsilon = epsilon, delta = delta,
                 spending = spending, futility = if (futility) "non-binding" else NULL, ratio = ratio,
                 information = if (is.null(information)) NULL else as.list(as.numeric(information)))
  out <- .call("sequential_design", list(p1, p2), kwargs, convert = "design")
  structure(out, class = "dp_sequential_design")
}

#' @export
print.dp_sequential_design <- function(x, ...) {
  cat(x$printed, "\n", sep = "")
  invisible(x)
}
