test_that("dp_binom_test equals Python's binom_ump_test for the same seeded release", {
  skip_without_dpinfer()
  rel <- dp_release_count(11, 30, epsilon = 1, seed = 1)
  ref_rel <- py_release(11, 30, 1, 1)
  expect_identical(rel$value, ref_rel$value)
  for (alt in c("two.sided", "less", "greater")) {
    res <- dp_binom_test(rel, p = 0.2, alternative = alt, conf.level = 0.9)
    ref <- py_dpinfer()$binom_ump_test(ref_rel, 0.2, alternative = sub(".", "-", alt, fixed = TRUE),
                                       confidence_level = 0.9)
    expect_s3_class(res, "htest")
    expect_identical(res$p.value, ref$pvalue)
    expect_identical(as.numeric(res$conf.int), c(ref$conf_int$low, ref$conf_int$high))
    expect_identical(attr(res$conf.int, "conf.level"), 0.9)
    expect_identical(unname(res$estimate), ref$estimate)
    expect_identical(unname(res$statistic), ref_rel$value)
    expect_identical(res$alternative, alt)
    expect_identical(unname(res$null.value), 0.2)
  }
})

test_that("the p-value is binomialDP's sum (Tulap cdf written out here in R)", {
  skip_without_dpinfer()
  # pvalLeft(12.7, 30, 0.2, exp(-1), 0) = sum_x dbinom(x, 30, 0.2) * ptulap(x - 12.7)
  ptulap <- function(t, b) {
    one <- function(t) {
      if (t > 0) return(1 - one(-t))
      r <- round(t)
      b^(-r) / (1 + b) * (b + (t - r + 1 / 2) * (1 - b))
    }
    vapply(t, one, 0)
  }
  x <- 0:30
  expected <- sum(dbinom(x, 30, 0.2) * ptulap(x - 12.7, exp(-1)))
  res <- dp_binom_test(12.7, 30, p = 0.2, alternative = "greater", epsilon = 1)
  expect_equal(res$p.value, expected, tolerance = 1e-10)
  expect_identical(format(res$p.value, digits = 4), "0.007899")
})

test_that("R spellings are accepted, and Python's", {
  skip_without_dpinfer()
  a <- dp_binom_test(12.7, 30, p = 0.3, epsilon = 1)
  b <- dp_binom_test(12.7, 30, p = 0.3, alternative = "two.sided", epsilon = 1)
  c <- dp_binom_test(12.7, 30, p = 0.3, alternative = "two-sided", epsilon = 1)
  g <- dp_binom_test(12.7, 30, p = 0.3, alternative = "g", epsilon = 1)
  expect_identical(a$p.value, b$p.value)
  expect_identical(a$p.value, c$p.value)
  expect_identical(a$alternative, "two.sided")
  expect_identical(g$alternative, "greater")
  expect_error(dp_binom_test(12.7, 30, alternative = "sideways", epsilon = 1), "should be one of")
})

test_that("a release carries n and epsilon; giving them again is refused", {
  skip_without_dpinfer()
  rel <- dp_release_count(11, 30, epsilon = 1, seed = 1)
  expect_error(dp_binom_test(rel, 30), "come from the release")
  expect_error(dp_binom_test(12.7, 30), "`epsilon` must be given")
})

test_that("print shows R's htest block then the privacy lines Python prints", {
  skip_without_dpinfer()
  rel <- dp_release_count(11, 30, epsilon = 1, seed = 1)
  res <- dp_binom_test(rel, p = 0.2, alternative = "greater")
  ours <- capture.output(print(res))
  python <- strsplit(py_dpinfer()$binom_ump_test(py_release(11, 30, 1, 1), 0.2,
                                                 alternative = "greater")$`__str__`(), "\n")[[1]]
  block <- python[seq_len(which(startsWith(python, "privacy:")) - 1L)]
  expect_identical(trimws(ours[seq_along(block)], "right"), trimws(block, "right"))
  expect_true(any(ours == "privacy: epsilon = 1, delta = 0, Tulap mechanism, seeded path (research only)"))
  expect_identical(dp_privacy(res)$epsilon, 1)
  expect_false(dp_privacy(res)$secure)
  expect_identical(dp_privacy(res)$mechanism, "tulap")
})

test_that("several values at once are refused with the way to test them", {
  skip_without_dpinfer()
  expect_error(dp_binom_test(c(12.7, 9.1), 30, epsilon = 1), "lapply", fixed = TRUE)
  many <- lapply(c(12.7, 9.1), dp_binom_test, n = 30, p = 0.2, epsilon = 1)
  expect_length(many, 2L)
  expect_true(all(vapply(many, inherits, logical(1), "htest")))
})
