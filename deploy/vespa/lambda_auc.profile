rank-profile lambda_auc inherits default {
    first-phase {
        expression: xgboost("lambda_auc.json")
    }
}
