test_that("dp_mantelhaen_test equals Python's binom_strata_test for the same seeded releases", {
  skip_without_dpinfer()
  strata <- list(
    Leeds = list(dp_release_count(24, 40, epsilon = 1, seed = 1), dp_release_count(15, 40, epsilon = 1, seed = 2)),
    Lyon = list(dp_release_count(33, 60, epsilon = 2, seed = 3), dp_release_count(22, 60, epsilon = 2, seed = 4)))
  res <- dp_mantelhaen_test(strata, alternative = "greater", margin = -0.05)
  py <- py_dpinfer()
  pairs <- list(list(py_release(24, 40, 1, 1), py_release(15, 40, 1, 2)),
                list(py_release(33, 60, 2, 3), py_release(22, 60, 2, 4)))
  ref <- py$binom_strata_test(pairs, -0.05, alternative = "greater")
  expect_s3_class(res, "htest")
  expect_identical(res$p.value, ref$pvalue)
  expect_identical(as.numeric(res$conf.int), c(ref$conf_int$low, ref$conf_int$high))
  expect_identical(unname(res$estimate), ref$estimate)
  expect_identical(res$alternative, "greater")
  expect_match(res$data.name, "strata: Leeds, Lyon")
  expect_match(dp_privacy(res)$note, "stratum 2 arm 1: epsilon = 2")
  expect_error(dp_mantelhaen_test(list(strata$Leeds[[1]])), "list of strata, each a list of two releases")
})
